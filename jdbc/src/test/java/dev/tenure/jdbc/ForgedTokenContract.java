package dev.tenure.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.client.StaleTokenException;
import dev.tenure.client.UnavailableException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A token higher than any Tenure issued: what it does to a trusting fence (docs/fencing.md,
 * "Forged tokens"), and how a {@link TokenVerifier} stops it. The verifier here is a fake Tenure
 * (lock → current grant); {@code ScriptedTenureTest} covers {@link TenureTokenVerifier} itself.
 */
abstract class ForgedTokenContract extends DatabaseTest {
    private static final long FORGED = Long.MAX_VALUE / 2;

    private final Map<String, Long> currentGrant = new ConcurrentHashMap<>();
    private final AtomicInteger asked = new AtomicInteger();

    private final TokenVerifier fakeTenure = (lock, token) -> {
        asked.incrementAndGet();
        Long current = currentGrant.get(lock);
        return current != null && current == token;
    };

    /** The class's instance lives for all its tests (one database per class): start each afresh. */
    @BeforeEach
    void forgetGrants() {
        currentGrant.clear();
        asked.set(0);
    }

    @Test
    void aForgedTokenBricksAResourceWhenTokensAreTrusted() throws SQLException {
        JdbcFence trusting = fence(JdbcFence.builder().trustTokens()); // the explicit, unsafe opt-in
        write(trusting, "orders", 5, "real-5");
        write(trusting, "orders", FORGED, "forged"); // accepted: nothing tells the fence it is not genuine
        // Every real holder from now on is refused, for ever: real tokens never reach FORGED.
        for (long real : new long[] {6, 1_000, 1_000_000}) {
            assertThatThrownBy(() -> write(trusting, "orders", real, "real-" + real))
                    .isInstanceOfSatisfying(
                            StaleTokenException.class,
                            e -> assertThat(e.currentToken()).isEqualTo(FORGED));
        }
        assertThat(Tables.storedToken(ds, trusting, "orders")).hasValue(FORGED);
    }

    @Test
    void aVerifyingFenceRefusesAForgedTokenAndStaysUsable() throws SQLException {
        JdbcFence verifying = fence(JdbcFence.builder().verifier(fakeTenure));
        currentGrant.put("orders", 5L);
        write(verifying, "orders", 5, "real-5");
        assertThatThrownBy(() -> write(verifying, "orders", FORGED, "forged"))
                .isInstanceOfSatisfying(UnverifiedTokenException.class, e -> {
                    assertThat(e.lock()).isEqualTo("orders");
                    assertThat(e.token()).isEqualTo(FORGED);
                    assertThat(e.currentToken()).isEqualTo(5);
                });
        currentGrant.put("orders", 6L); // the next real holder
        write(verifying, "orders", 6, "real-6");
        assertThat(Tables.storedToken(ds, verifying, "orders")).hasValue(6);
        assertThat(rows()).isEqualTo(2);
    }

    @Test
    void aForgedFirstTokenIsRefusedToo() throws SQLException {
        JdbcFence verifying = fence(JdbcFence.builder().verifier(fakeTenure));
        assertThatThrownBy(() -> write(verifying, "fresh", FORGED, "forged"))
                .isInstanceOf(UnverifiedTokenException.class);
        assertThat(Tables.storedToken(ds, verifying, "fresh")).isEmpty();
    }

    @Test
    void onlyATokenThatWouldRaiseTheMarkIsVerified() throws SQLException {
        JdbcFence verifying = fence(JdbcFence.builder().verifier(fakeTenure));
        currentGrant.put("orders", 5L);
        write(verifying, "orders", 5, "first"); // new for the resource: asked
        assertThat(asked).hasValue(1);
        write(verifying, "orders", 5, "again"); // equal: already confirmed
        write(verifying, "orders", 5, "and-again");
        assertThat(asked).hasValue(1);
        assertThatThrownBy(() -> write(verifying, "orders", 4, "lower")) // lower: refused anyway
                .isInstanceOf(StaleTokenException.class)
                .isNotInstanceOf(UnverifiedTokenException.class);
        assertThat(asked).hasValue(1);
        currentGrant.put("orders", 9L);
        write(verifying, "orders", 9, "higher"); // higher: asked
        assertThat(asked).hasValue(2);
    }

    @Test
    void aSupersededTokenThatWouldRaiseTheMarkIsRefused() throws SQLException {
        JdbcFence verifying = fence(JdbcFence.builder().verifier(fakeTenure));
        currentGrant.put("orders", 5L);
        write(verifying, "orders", 5, "a");
        currentGrant.put("orders", 8L); // 7 was granted and lost before it wrote; 8 holds now
        assertThatThrownBy(() -> write(verifying, "orders", 7, "late")).isInstanceOf(UnverifiedTokenException.class);
        assertThat(Tables.storedToken(ds, verifying, "orders")).hasValue(5);
    }

    @Test
    void aGenuineCurrentTokenOfAnotherLockCannotMoveTheMark() throws SQLException {
        JdbcFence verifying = fence(JdbcFence.builder().verifier(fakeTenure));
        currentGrant.put("orders", 5L);
        currentGrant.put("billing", 9L); // genuine, current, and higher: tokens are global
        write(verifying, "orders", 5, "real-5");
        assertThatThrownBy(() -> verifying.write(ds, "orders", "billing", 9, c -> Tables.insert(c, data, "x", 9)))
                .isInstanceOfSatisfying(
                        FenceLockMismatchException.class,
                        e -> assertThat(e.fenceLock()).isEqualTo("orders"));
        assertThat(asked).as("refused before Tenure is asked").hasValue(1);
        assertThat(Tables.storedToken(ds, verifying, "orders")).hasValue(5);
        write(verifying, "orders", 5, "real-5-again"); // the real holder is not locked out
        assertThat(rows()).isEqualTo(2);
    }

    @Test
    void theThreeArgumentGuardAsksAboutTheResourceAsTheLockName() throws SQLException {
        JdbcFence verifying = fence(JdbcFence.builder().verifier(fakeTenure));
        currentGrant.put("orders", 5L);
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            verifying.guard(c, "orders", 5); // lock "orders": its current grant
            assertThatThrownBy(() -> verifying.guard(c, "orders-cursor", 5)) // lock "orders-cursor": nobody's
                    .isInstanceOfSatisfying(
                            UnverifiedTokenException.class,
                            e -> assertThat(e.lock()).isEqualTo("orders-cursor"));
            verifying.guard(c, "orders-cursor", "orders", 5); // the lock named explicitly
            c.commit();
        }
        assertThat(Tables.storedToken(ds, verifying, "orders")).isEmpty(); // the rejection rolled it back
        assertThat(Tables.storedToken(ds, verifying, "orders-cursor")).hasValue(5);
    }

    @Test
    void aVerifierThatCannotReachTenureFailsClosed() throws SQLException {
        JdbcFence verifying = fence(JdbcFence.builder().verifier((lock, token) -> {
            throw new UnavailableException("no quorum", null);
        }));
        assertThatThrownBy(() -> write(verifying, "orders", 5, "a")).isInstanceOf(UnavailableException.class);
        assertThat(rows()).isZero();
        assertThat(Tables.storedToken(ds, verifying, "orders")).isEmpty();
    }
}
