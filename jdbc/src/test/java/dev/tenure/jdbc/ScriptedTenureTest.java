package dev.tenure.jdbc;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.client.StaleTokenException;
import dev.tenure.client.TenureClient;
import dev.tenure.client.fence.FencedStore;
import dev.tenure.testkit.TimeScale;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link TenureTokenVerifier} and {@link TenureKvStore} through the real client, against a
 * {@link ScriptedTenure} gateway on loopback. What a real server decides is its own tests' job;
 * here: that these classes ask the right question and map the answer.
 */
class ScriptedTenureTest {
    private ScriptedTenure tenure;
    private TenureClient client;

    @BeforeEach
    void connect() {
        tenure = new ScriptedTenure();
        client = TenureClient.builder()
                .endpoints(tenure.endpoint())
                .requestTimeout(TimeScale.scaled(Duration.ofSeconds(10)))
                .build();
    }

    @AfterEach
    void disconnect() {
        client.close();
        tenure.close();
    }

    @Test
    void verifierConfirmsOnlyTheLocksCurrentGrant() {
        TenureTokenVerifier verifier = new TenureTokenVerifier(client);
        tenure.currentGrant.put("orders", 42L);
        assertThat(verifier.isCurrentGrant("orders", 42)).isTrue();
        assertThat(verifier.isCurrentGrant("orders", 41)).as("superseded").isFalse();
        assertThat(verifier.isCurrentGrant("orders", Long.MAX_VALUE / 2))
                .as("forged")
                .isFalse();
        assertThat(verifier.isCurrentGrant("invoices", 42))
                .as("another lock, free")
                .isFalse();
    }

    @Test
    void aVerifyingFenceAsksTenureOncePerNewTokenAndRefusesForgeries() throws SQLException {
        H2Database h2 = new H2Database();
        try (Connection c = h2.dataSource().getConnection()) {
            JdbcFence fence = JdbcFence.builder()
                    .verifier(new TenureTokenVerifier(client))
                    .build();
            fence.createTable(c);
            c.setAutoCommit(false);
            tenure.currentGrant.put("orders", 7L);
            fence.guard(c, "orders", 7);
            fence.guard(c, "orders", 7);
            c.commit();
            assertThat(tenure.statusCalls).hasValue(1);
            assertThatThrownBy(() -> fence.guard(c, "orders", Long.MAX_VALUE / 2))
                    .isInstanceOf(UnverifiedTokenException.class);
            tenure.currentGrant.put("orders", 8L);
            fence.guard(c, "orders", 8);
            c.commit();
        } finally {
            h2.close();
        }
    }

    @Test
    void kvStoreWritesWithTheCurrentGrantAndRefusesAStaleOne() {
        FencedStore<byte[]> store = FencedStore.of(client.kv());
        tenure.currentGrant.put("orders", 5L);
        store.checkAndWrite("orders/cursor", "orders", 5, "o-1".getBytes(UTF_8));
        assertThat(tenure.kv.get("orders/cursor")).isEqualTo("o-1".getBytes(UTF_8));

        tenure.currentGrant.put("orders", 6L);
        assertThatThrownBy(() -> store.checkAndWrite("orders/cursor", "orders", 5, "o-2".getBytes(UTF_8)))
                .isInstanceOfSatisfying(StaleTokenException.class, e -> {
                    assertThat(e.resource()).isEqualTo("orders/cursor");
                    assertThat(e.token()).isEqualTo(5);
                    assertThat(e.currentToken()).isEqualTo(6);
                });
        assertThat(tenure.kv.get("orders/cursor")).isEqualTo("o-1".getBytes(UTF_8));
    }
}
