package dev.tenure.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;

/**
 * One database per test class (a subclass picks which), opened before its first test and closed
 * after its last. Every test gets a fresh fence table and a fresh data table, so no cleanup.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class DatabaseTest {
    TestDatabase db;
    DataSource ds;
    JdbcFence fence;
    String data;

    abstract TestDatabase open();

    @BeforeAll
    void start() {
        db = open();
        ds = db.dataSource();
    }

    @AfterAll
    void stop() {
        if (db != null) {
            db.close();
        }
    }

    @BeforeEach
    void freshTables() throws SQLException {
        fence = fence(JdbcFence.builder().trustTokens()); // the guard's own rules, no Tenure
        data = Tables.fresh("data");
        Tables.execute(ds, "CREATE TABLE " + data + " (id VARCHAR(64) PRIMARY KEY, token BIGINT NOT NULL)");
    }

    /** A fence on a fresh table, created. */
    JdbcFence fence(JdbcFence.Builder builder) throws SQLException {
        JdbcFence f = builder.table(Tables.fresh("fence")).build();
        try (Connection c = ds.getConnection()) {
            f.createTable(c);
        }
        return f;
    }

    /** One fenced transaction through the convenience path: guard, insert one row, commit. */
    void write(String resource, long token, String id) {
        write(fence, resource, token, id);
    }

    void write(JdbcFence f, String resource, long token, String id) {
        f.write(ds, resource, resource, token, c -> Tables.insert(c, data, id, token));
    }

    long rows() throws SQLException {
        return Tables.count(ds, "SELECT COUNT(*) FROM " + data);
    }
}
