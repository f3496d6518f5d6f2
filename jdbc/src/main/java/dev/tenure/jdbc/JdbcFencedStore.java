package dev.tenure.jdbc;

import dev.tenure.client.fence.FencedStore;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The JDBC fence as a {@link FencedStore}: each write is one transaction on a connection from the
 * data source, guarded first, then the work, then commit (see
 * {@link JdbcFence#write(DataSource, String, String, long, JdbcFence.Work)}).
 */
public final class JdbcFencedStore implements FencedStore<JdbcFence.Work> {
    private final DataSource dataSource;
    private final JdbcFence fence;

    public JdbcFencedStore(DataSource dataSource, JdbcFence fence) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.fence = Objects.requireNonNull(fence, "fence");
    }

    /**
     * @throws dev.tenure.client.StaleTokenException the token is stale: rolled back
     * @throws FenceSqlException the database failed: rolled back, or unknown if the commit failed
     */
    @Override
    public void checkAndWrite(String resource, String lock, long token, JdbcFence.Work work) {
        fence.write(dataSource, resource, lock, token, work);
    }
}
