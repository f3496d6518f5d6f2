package dev.tenure.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/** Shape checks that need no database, or only H2. */
class JdbcFenceArgumentsTest {

    @Test
    void aFenceMustBeToldHowToCheckTokensItHasNotSeen() {
        assertThatThrownBy(() -> JdbcFence.builder().build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(".verifier(new TenureTokenVerifier(client))")
                .hasMessageContaining(".trustTokens()")
                .hasMessageContaining("unsafe against forged tokens");
        assertThatThrownBy(() -> JdbcFence.builder()
                        .verifier((lock, token) -> true)
                        .trustTokens()
                        .build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not both");
        assertThat(JdbcFence.builder().verifier((lock, token) -> true).build().table())
                .isEqualTo(JdbcFence.TABLE_DEFAULT);
    }

    @Test
    void theTableNameIsAnIdentifierNeverSql() {
        assertThat(JdbcFence.builder().trustTokens().build().table()).isEqualTo("tenure_fence");
        assertThat(JdbcFence.builder()
                        .trustTokens()
                        .table("ops.fence_v2")
                        .build()
                        .table())
                .isEqualTo("ops.fence_v2");
        for (String bad : new String[] {"", "f; DROP TABLE x", "a.b.c", "1fence", "f\"", "x".repeat(64)}) {
            assertThatThrownBy(() -> JdbcFence.builder().table(bad)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void theDdlIsDocumented() {
        assertThat(JdbcFence.builder().trustTokens().build().ddl())
                .isEqualTo("CREATE TABLE IF NOT EXISTS tenure_fence (resource VARCHAR(512) PRIMARY KEY,"
                        + " token BIGINT NOT NULL, lock_name VARCHAR(512), updated_at TIMESTAMP)");
        assertThat(JdbcFence.builder().trustTokens().build().upgradeDdl())
                .isEqualTo("ALTER TABLE tenure_fence ADD COLUMN lock_name VARCHAR(512)");
    }

    @Test
    void resourceAndTokenAreCheckedBeforeAnySql() throws SQLException {
        JdbcFence fence = JdbcFence.builder().trustTokens().build();
        H2Database h2 = new H2Database();
        try (Connection c = h2.dataSource().getConnection()) {
            c.setAutoCommit(false);
            assertThatThrownBy(() -> fence.guard(c, "", 1)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> fence.guard(c, "r".repeat(JdbcFence.RESOURCE_CHARS_MAX + 1), 1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("512");
            assertThatThrownBy(() -> fence.guard(c, "r", 0)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> fence.guard(c, "r", "", 1)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> fence.guard(c, "r", "l".repeat(JdbcFence.LOCK_CHARS_MAX + 1), 1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("lock must be 1..512");
            assertThatThrownBy(() -> fence.moveResource(c, "r", "a", "")).isInstanceOf(IllegalArgumentException.class);
        } finally {
            h2.close();
        }
    }

    @Test
    void aMissingTableIsADatabaseFailureNotARejection() throws SQLException {
        JdbcFence fence =
                JdbcFence.builder().trustTokens().table("no_such_table").build();
        H2Database h2 = new H2Database();
        try (Connection c = h2.dataSource().getConnection()) {
            c.setAutoCommit(false);
            assertThatThrownBy(() -> fence.guard(c, "r", 1)).isInstanceOf(FenceSqlException.class);
        } finally {
            h2.close();
        }
    }
}
