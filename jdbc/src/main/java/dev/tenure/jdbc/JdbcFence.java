package dev.tenure.jdbc;

import dev.tenure.client.Lease;
import dev.tenure.client.StaleTokenException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Fenced writes to a SQL database: the caller's own transaction commits only while its token is
 * not older than any token already accepted for the resource it writes. Immutable and
 * thread-safe; build it once with {@link #builder()}.
 *
 * <p>The fence keeps one row per resource in its table (DDL: {@link #ddl()}), holding the highest
 * token accepted for it and the lock it belongs to: the lock of its first guard. A guard under any
 * other lock is refused ({@link FenceLockMismatchException}), since tokens are global and a genuine
 * current token of another lock would otherwise raise the mark and lock the real holder out. {@link #guard} raises that row to the caller's token with a conditional
 * update inside the caller's transaction and so holds the row's lock until commit or rollback:
 *
 * <pre>{@code
 * connection.setAutoCommit(false);
 * fence.guard(connection, "orders", lease.fence(Duration.ofMillis(500))); // first, then write
 * try (PreparedStatement s = connection.prepareStatement("INSERT INTO shipped VALUES (?)")) { ... }
 * connection.commit();
 * }</pre>
 *
 * <p>Why a stale writer cannot commit: its guard either finds a higher token already committed
 * and throws {@link StaleTokenException}, or it raises the row and then holds the row lock, so a
 * newer holder's guard waits for it. Every transaction that passed its guard therefore commits
 * before any higher token is accepted for the resource: the tokens of committed writes, in commit
 * order, never go down. A newer holder that got in first makes an older one's guard wait for it and
 * then fail, so nothing the older one wrote lands.
 *
 * <p>A fence is built either with a {@link TokenVerifier} (normally {@link TenureTokenVerifier}),
 * which confirms with Tenure every token it has not seen before it lets it raise a resource's mark,
 * or with the explicit opt-in {@link Builder#trustTokens()}, which accepts any number and so lets
 * one forged high token lock a resource out for good (docs/fencing.md, "Forged tokens").
 */
public final class JdbcFence {
    public static final String TABLE_DEFAULT = "tenure_fence";
    /** Longest resource name (the key column is VARCHAR of this many characters). */
    public static final int RESOURCE_CHARS_MAX = 512;
    /** Longest lock name (the lock column is VARCHAR of this many characters). */
    public static final int LOCK_CHARS_MAX = 512;
    /**
     * How many times one guard re-reads the row after losing a race to a concurrent insert or
     * raise. Each loss means another transaction committed a change to the row, so two or three
     * are the most a guard should see.
     */
    static final int SETTLE_ATTEMPTS_MAX = 16;

    private static final Pattern TABLE_NAME =
            Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");

    private final String table;
    private final @Nullable Dialect dialect; // null: detected from each connection
    private final @Nullable TokenVerifier verifier; // null: tokens are trusted (Builder.trustTokens())
    private final Map<Dialect, FenceSql> sqlByDialect = new EnumMap<>(Dialect.class);

    private JdbcFence(Builder b) {
        this.table = b.table;
        this.dialect = b.dialect;
        this.verifier = b.verifier;
        for (Dialect d : Dialect.values()) {
            sqlByDialect.put(d, new FenceSql(table, d));
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    public String table() {
        return table;
    }

    /** {@code CREATE TABLE IF NOT EXISTS} for this fence's table; the same for every dialect. */
    public String ddl() {
        return FenceSql.ddl(table);
    }

    /**
     * The one statement that upgrades a fence table made by an earlier release (without the lock
     * column): {@code ALTER TABLE ... ADD COLUMN lock_name ...}. {@link #createTable} runs it when
     * the column is missing; this is for those who manage their schema by hand.
     */
    public String upgradeDdl() {
        return FenceSql.upgradeDdl(table);
    }

    /**
     * Creates the table if it does not exist, and adds the lock column to a table of an earlier
     * release that lacks it (its rows belong to the lock of their next admitted guard), in the
     * connection's current transaction mode: with autocommit off, the caller commits.
     */
    public void createTable(Connection connection) {
        try {
            sql(connection).create(connection);
        } catch (SQLException e) {
            throw new FenceSqlException("creating fence table " + table + " failed", e);
        }
    }

    /**
     * {@link #guard(Connection, String, String, long)} with the resource named after its lock: a
     * configured {@link TokenVerifier} is asked about {@code resource} as the lock name.
     */
    public void guard(Connection connection, String resource, long token) {
        guard(connection, resource, resource, token);
    }

    /**
     * Admits {@code token} for {@code resource} in the caller's open transaction, and keeps every
     * higher token out until that transaction ends. Call it before the transaction's writes:
     * guard, write, commit. The caller holds the connection's transaction; the guard never
     * commits.
     *
     * <p>Equal tokens pass (one holder writes in many transactions); a token higher than the
     * highest accepted passes once the {@link TokenVerifier}, if any, confirms it as {@code lock}'s
     * current grant.
     *
     * <p>The resource belongs to the lock of its first guard: a guard naming another lock is refused
     * whatever its token, and the mark does not move.
     *
     * @param lock the lock that granted {@code token}: recorded in the resource's row at its first
     *     guard, and asked about by a verifier
     * @throws FenceLockMismatchException the resource belongs to another lock: rolled back
     * @throws StaleTokenException a higher token was accepted for the resource (or, with a
     *     verifier, {@link UnverifiedTokenException}). The guard has already rolled the
     *     transaction back, so nothing written in it before the guard can commit by mistake.
     * @throws FenceSqlException the database failed; roll back
     * @throws IllegalStateException autocommit is on: there is no transaction to fence
     */
    public void guard(Connection connection, String resource, String lock, long token) {
        Objects.requireNonNull(connection, "connection");
        checkResource(resource);
        checkLock(lock);
        checkToken(token);
        try {
            if (connection.getAutoCommit()) {
                throw new IllegalStateException("guard needs an open transaction, but autocommit is on: the fence"
                        + " row's lock would be released at once and the writes that follow would not be"
                        + " fenced. Call connection.setAutoCommit(false) first.");
            }
            settle(connection, sql(connection), resource, lock, token);
        } catch (SQLException e) {
            throw failed("fence guard on '" + resource + "' with token " + token + " failed", e);
        }
    }

    /**
     * Moves {@code resource} from {@code fromLock} to {@code toLock} on purpose, in the caller's
     * transaction (with autocommit off, the caller commits). From then on guards under
     * {@code toLock} are admitted by the usual token rule and guards under {@code fromLock} are
     * refused. The mark stays: a holder of {@code toLock} whose token is lower than the last token
     * accepted under {@code fromLock} (granted before it) is refused until it acquires again, since
     * tokens are global and every later grant is higher. A {@code fromLock} transaction still open
     * holds the row, so the move waits for it to end. A row from before the lock column belongs to
     * no lock and moves too.
     *
     * @throws FenceLockMismatchException the resource belongs to a third lock: nothing changed
     * @throws IllegalStateException the resource has no fence row yet (its first guard records its
     *     lock; there is nothing to move)
     * @throws FenceSqlException the database failed
     */
    public void moveResource(Connection connection, String resource, String fromLock, String toLock) {
        Objects.requireNonNull(connection, "connection");
        checkResource(resource);
        checkLock(fromLock);
        checkLock(toLock);
        try {
            FenceSql sql = sql(connection);
            if (sql.move(connection, resource, fromLock, toLock)) {
                return;
            }
            Optional<FenceSql.Row> row = sql.read(connection, resource);
            if (row.isEmpty()) {
                throw new IllegalStateException("resource '" + resource + "' has no fence row in " + table
                        + ": nothing to move; its first guard records the lock that fences it");
            }
            if (row.get().belongsToAnother(fromLock)) {
                throw new FenceLockMismatchException(
                        resource, fromLock, row.get().lock());
            }
            // Neither: the row was moved or claimed between our statements by a transaction that
            // committed after our update's snapshot; the caller retries and sees it.
            throw new FenceSqlException("moving '" + resource + "' raced a concurrent guard or move; retry");
        } catch (SQLException e) {
            throw failed("moving '" + resource + "' from lock '" + fromLock + "' to '" + toLock + "' failed", e);
        }
    }

    /** A table of an earlier release is told apart from other failures: its fix is one statement. */
    private FenceSqlException failed(String what, SQLException e) {
        if (FenceSql.missingLockColumn(e)) {
            return new FenceSqlException(
                    "fence table " + table + " has no " + FenceSql.LOCK_COLUMN + " column (made by an earlier"
                            + " tenure-jdbc): run fence.createTable(connection) once, or \"" + upgradeDdl()
                            + "\" (docs/fencing.md, \"Upgrading a fence table\")",
                    e);
        }
        return new FenceSqlException(what, e);
    }

    /**
     * One fenced transaction: takes a connection from {@code dataSource}, turns autocommit off,
     * takes the token from {@code lease.fence(minRemaining)}, guards {@code resource}, runs
     * {@code work} and commits; rolls back on any failure.
     *
     * @throws dev.tenure.client.TenureException {@code LEASE_LOST}: the lease is lost, nothing
     *     written; {@code LEASE_EXPIRING}: less than {@code minRemaining} left
     * @throws StaleTokenException the token is stale: rolled back
     * @throws FenceSqlException the database failed: rolled back, or unknown if the commit failed
     */
    public void write(DataSource dataSource, String resource, Lease lease, Duration minRemaining, Work work) {
        Objects.requireNonNull(lease, "lease");
        Objects.requireNonNull(minRemaining, "minRemaining");
        FencedTransaction.run(dataSource, this, resource, lease.lock(), () -> lease.fence(minRemaining), work);
    }

    /**
     * {@link #write(DataSource, String, Lease, Duration, Work)} for a process handed a token
     * rather than a lease (a script under {@code tenure run}, a worker).
     */
    public void write(DataSource dataSource, String resource, String lock, long token, Work work) {
        checkToken(token);
        FencedTransaction.run(dataSource, this, resource, lock, () -> token, work);
    }

    /** The writes of one fenced transaction, on its connection; may throw SQLException. */
    @FunctionalInterface
    public interface Work {
        void run(Connection connection) throws SQLException;
    }

    /**
     * The guard's statements, each safe under READ COMMITTED in PostgreSQL and H2 (the default in
     * both):
     *
     * <ol>
     *   <li>{@code UPDATE ... WHERE resource = ? AND token <= ? AND (lock_name = ? OR lock_name
     *       IS NULL)} (and {@code >= token} while a verifier wants to see higher tokens first).
     *       Both databases lock the row before changing
     *       it and, if a concurrent transaction held that lock, re-evaluate the WHERE clause
     *       against the version it committed (PostgreSQL's EvalPlanQual recheck; H2 re-reads the
     *       locked row). So an update that matched is conditional on the newest committed token,
     *       and the lock it took keeps every other guard of the resource waiting until we end.
     *   <li>If nothing matched: {@code SELECT token, lock_name}. Each READ COMMITTED statement
     *       sees what was committed before it began. A committed row's lock never changes but by
     *       {@link #moveResource}, so another lock's row is final: refuse. Tokens stored only go
     *       up, so a committed token above ours is final: reject. A stored token at or below ours (committed after step 1's snapshot) or
     *       no row means: try again, verifying first if the token would raise the mark.
     *   <li>No row: {@code INSERT}. The primary key admits one insert per resource; a concurrent
     *       inserter makes ours wait for its end and then conflict (no error that would break the
     *       caller's transaction: see {@link Dialect}), and we loop back to read its row. Our own
     *       insert holds the new row's lock until we end, like step 1.
     * </ol>
     *
     * A verifier is asked only when no row lock is held, so the round trip to Tenure never makes
     * other writers of the resource wait.
     */
    private void settle(Connection c, FenceSql sql, String resource, String lock, long token) throws SQLException {
        // Fast path, one statement: the steady state (no verifier), or the same holder writing
        // again (a verifier already confirmed an equal token when it first raised the mark).
        if (sql.raise(c, resource, lock, token, verifier == null ? Long.MIN_VALUE : token)) {
            return;
        }
        boolean verified = verifier == null;
        for (int attempt = 0; attempt < SETTLE_ATTEMPTS_MAX; attempt++) {
            Optional<FenceSql.Row> stored = sql.read(c, resource);
            // Before the token and before the verifier: another lock's token, genuine or not, has
            // no say over this resource's mark, and refusing it costs no round trip to Tenure.
            if (stored.isPresent() && stored.get().belongsToAnother(lock)) {
                throw rolledBack(
                        c,
                        new FenceLockMismatchException(
                                resource, lock, stored.get().lock()));
            }
            long highest = stored.map(FenceSql.Row::token).orElse(0L);
            if (stored.isPresent() && highest > token) {
                throw rolledBack(
                        c,
                        new StaleTokenException(
                                "write to '" + resource + "' with token " + token + " rejected: token " + highest
                                        + " is newer",
                                resource,
                                token,
                                highest,
                                null));
            }
            if (!verified && verifier != null && highest < token) {
                if (!verifier.isCurrentGrant(lock, token)) {
                    throw rolledBack(c, new UnverifiedTokenException(resource, lock, token, highest));
                }
                verified = true;
            }
            boolean admitted = stored.isPresent()
                    ? sql.raise(c, resource, lock, token, Long.MIN_VALUE)
                    : sql.insert(c, resource, lock, token);
            if (admitted) {
                return;
            }
            // Lost a race: another transaction committed the row, raised it or claimed it for its
            // lock after our read.
        }
        throw new FenceSqlException("fence guard on '" + resource + "' lost " + SETTLE_ATTEMPTS_MAX
                + " races in a row to concurrent writers; roll back and retry");
    }

    /**
     * Rolls the caller's transaction back before the rejection reaches it: a caller that catches
     * the exception and commits anyway commits nothing written before the guard.
     */
    private static <T extends RuntimeException> T rolledBack(Connection c, T rejected) {
        try {
            c.rollback();
        } catch (SQLException e) {
            rejected.addSuppressed(e);
        }
        return rejected;
    }

    private FenceSql sql(Connection c) throws SQLException {
        // Never null: the constructor made the SQL of every dialect.
        return Objects.requireNonNull(sqlByDialect.get(dialect != null ? dialect : Dialect.detect(c)));
    }

    static void checkResource(String resource) {
        Objects.requireNonNull(resource, "resource");
        if (resource.isEmpty() || resource.length() > RESOURCE_CHARS_MAX) {
            throw new IllegalArgumentException(
                    "resource must be 1.." + RESOURCE_CHARS_MAX + " characters: " + resource.length());
        }
    }

    private static void checkLock(String lock) {
        Objects.requireNonNull(lock, "lock");
        if (lock.isEmpty() || lock.length() > LOCK_CHARS_MAX) {
            throw new IllegalArgumentException("lock must be 1.." + LOCK_CHARS_MAX + " characters: " + lock.length());
        }
    }

    private static void checkToken(long token) {
        if (token <= 0) {
            throw new IllegalArgumentException("token must be positive (Tenure's tokens start at 1): " + token);
        }
    }

    /**
     * Builds a {@link JdbcFence}. Table and dialect have defaults; how tokens are checked does not:
     * choose {@link #verifier(TokenVerifier)} or {@link #trustTokens()}.
     */
    public static final class Builder {
        private String table = TABLE_DEFAULT;
        private @Nullable Dialect dialect;
        private @Nullable TokenVerifier verifier;
        private boolean trustTokens;

        private Builder() {}

        /** The fence table, optionally schema-qualified; a plain SQL identifier. Default "tenure_fence". */
        public Builder table(String name) {
            Objects.requireNonNull(name, "name");
            if (!TABLE_NAME.matcher(name).matches()) {
                throw new IllegalArgumentException(
                        "table must be [schema.]name, each a SQL identifier of at most 63 characters: " + name);
            }
            this.table = name;
            return this;
        }

        /** Forces a dialect; by default it is detected from each connection's metadata. */
        public Builder dialect(Dialect dialect) {
            this.dialect = Objects.requireNonNull(dialect, "dialect");
            return this;
        }

        /**
         * Confirms a token before it raises a resource's mark, normally with
         * {@link TenureTokenVerifier}: a forged or superseded token is refused and the mark does not
         * move. See docs/fencing.md, "Forged tokens".
         */
        public Builder verifier(TokenVerifier verifier) {
            this.verifier = Objects.requireNonNull(verifier, "verifier");
            return this;
        }

        /**
         * Opt-in, unsafe against forged tokens: accept any token not lower than a resource's mark
         * without asking Tenure. One token higher than any Tenure issued (a bug, a writer that
         * claims any number) is then accepted once and refuses every real holder of the resource
         * for ever, until the row is repaired by hand. It saves one round trip to Tenure per new
         * holder and resource; use it only where every token comes straight from a lease.
         */
        public Builder trustTokens() {
            this.trustTokens = true;
            return this;
        }

        /**
         * Builds the fence.
         *
         * @throws IllegalStateException neither {@link #verifier(TokenVerifier)} nor
         *     {@link #trustTokens()} was chosen, or both were
         */
        public JdbcFence build() {
            if (verifier == null && !trustTokens) {
                throw new IllegalStateException("JdbcFence needs a way to check tokens it has not seen: give it"
                        + " .verifier(new TenureTokenVerifier(client)) to confirm each new token with Tenure, or"
                        + " opt in to .trustTokens(), which is unsafe against forged tokens (docs/fencing.md,"
                        + " \"Forged tokens\")");
            }
            if (verifier != null && trustTokens) {
                throw new IllegalStateException("JdbcFence: choose one of .verifier(...) and .trustTokens(), not both");
            }
            return new JdbcFence(this);
        }
    }
}
