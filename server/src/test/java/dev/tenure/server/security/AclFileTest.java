package dev.tenure.server.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.gateway.Acl;
import dev.tenure.gateway.Permission;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class AclFileTest {
    private static final String EXAMPLE = """
            principals:
              orders-worker:
                - prefix: "orders/"
                  allow: [acquire, read, write]
              ops:
                - prefix: ""
                  allow: [acquire, read, write, admin, monitor]
            """;

    @Test
    void theIssuesExampleGrantsExactlyWhatItSays() throws Exception {
        Acl acl = AclFile.parse("acl.yaml", EXAMPLE);
        Optional<String> worker = Optional.of("orders-worker");
        assertThat(acl.allows(worker, Permission.ACQUIRE, "orders/42")).isTrue();
        assertThat(acl.allows(worker, Permission.WRITE, "orders/cursor")).isTrue();
        assertThat(acl.allows(worker, Permission.ACQUIRE, "payments/1"))
                .as("another prefix")
                .isFalse();
        assertThat(acl.allows(worker, Permission.ACQUIRE, "orders-archive"))
                .as("bytes, not words")
                .isFalse();
        assertThat(acl.allows(worker, Permission.ADMIN, "orders/42")).isFalse();
        assertThat(acl.allows(worker, Permission.MONITOR, "")).isFalse();
        assertThat(acl.allows(Optional.of("ops"), Permission.ADMIN, "anything")).isTrue();
        assertThat(acl.allows(Optional.of("stranger"), Permission.READ, "orders/42"))
                .isFalse();
        assertThat(acl.allows(Optional.empty(), Permission.READ, "orders/42"))
                .as("a call without a principal")
                .isFalse();
    }

    @Test
    void everyMistakeIsRefusedNamingTheFileAndThePlace() {
        assertBad("principals: [a]", "acl a.yaml: principals: must be a mapping");
        assertBad("principal: {}", "acl a.yaml: the file: unknown key 'principal' (known: principals)");
        assertBad(
                "principals:\n  p:\n    - prefix: x\n      allow: [acquire, fly]",
                "acl a.yaml: principals.p[0].allow: unknown permission 'fly' (known: acquire, read, write, admin, monitor)");
        assertBad("principals:\n  p:\n    - allow: [read]", "acl a.yaml: principals.p[0]: missing 'prefix'");
        assertBad(
                "principals:\n  p:\n    - prefix: 3\n      allow: [read]",
                "acl a.yaml: principals.p[0].prefix: must be a string");
        assertBad("principals:\n  p: []", "acl a.yaml: principals.p: must be a non-empty list of {prefix, allow}");
        assertBad(
                "principals:\n  p:\n    - prefix: x\n      allow: []",
                "acl a.yaml: principals.p[0].allow: must be a non-empty");
        assertBad(
                "principals:\n  p:\n    - prefix: x\n      allow: [read]\n  p:\n    - prefix: y\n      allow: [read]",
                "acl a.yaml: not valid YAML");
        assertBad("principals: [", "acl a.yaml: not valid YAML");
    }

    @Test
    void aReloadKnowsWhoWasGivenLess() throws Exception {
        Acl before = AclFile.parse("a", EXAMPLE);
        Acl after = AclFile.parse("b", """
                principals:
                  orders-worker:
                    - prefix: "orders/"
                      allow: [acquire, read]
                    - prefix: "payments/"
                      allow: [acquire]
                  ops:
                    - prefix: ""
                      allow: [acquire, read, write, admin, monitor]
                    - prefix: "x/"
                      allow: [read]
                """);
        assertThat(after.narrowedSince(before)).containsExactly("orders-worker");
        assertThat(before.narrowedSince(before)).isEmpty();
        assertThat(Acl.OPEN.narrowedSince(before))
                .as("no ACL allows everything")
                .isEmpty();
        assertThat(before.narrowedSince(Acl.OPEN)).containsExactly(Acl.ANY);
        Acl split = AclFile.parse("c", """
                principals:
                  orders-worker:
                    - prefix: "orders/a"
                      allow: [acquire, read, write]
                    - prefix: "orders/b"
                      allow: [acquire, read, write]
                  ops:
                    - prefix: ""
                      allow: [acquire, read, write, admin, monitor]
                """);
        assertThat(split.narrowedSince(before))
                .as("two narrower prefixes do not cover the wider one")
                .containsExactly("orders-worker");
    }

    @Test
    void quotasGiveNamedPrincipalsTheirOwnPerPrincipalLimitsAndAFileWithoutThemKeepsTheNodes() throws Exception {
        String grants = """
                principals:
                  batch:
                    - prefix: ""
                      allow: [write]
                  web:
                    - prefix: ""
                      allow: [write]
                """;
        Acl acl = AclFile.parse(
                "a.yaml",
                grants + "quotas:\n  batch:\n    kvBytesPerPrincipalMax: 64MiB\n    leasesPerPrincipalMax: 100\n");
        assertThat(acl.quotas()).containsOnlyKeys("batch");
        assertThat(acl.quotas().get("batch"))
                .containsExactly(
                        java.util.Map.entry("kvBytesPerPrincipalMax", 64L << 20),
                        java.util.Map.entry("leasesPerPrincipalMax", 100L));
        assertThat(AclFile.parse("a.yaml", grants).quotas()).isEmpty();

        assertBad(
                grants + "quotas:\n  nobody:\n    kvKeysPerPrincipalMax: 1\n",
                "acl a.yaml: quotas.nobody: no such principal under principals");
        assertBad(
                grants + "quotas:\n  batch:\n    kvBytesMax: 1\n",
                "acl a.yaml: quotas.batch: unknown quota 'kvBytesMax' (known: ");
        assertBad(
                grants + "quotas:\n  batch:\n    kvKeysPerPrincipalMax: lots\n",
                "acl a.yaml: quotas.batch.kvKeysPerPrincipalMax: must be a count or a size (e.g. 100, 64MiB), found lots");
        assertBad(
                grants + "quotas:\n  batch:\n    sessionsPerPrincipalMax: 0\n",
                "acl a.yaml: quotas.batch: sessionsPerPrincipalMax 0: principal limits must be positive");
    }

    private static void assertBad(String yaml, String message) {
        assertThatThrownBy(() -> AclFile.parse("a.yaml", yaml))
                .isInstanceOf(AclFile.BadAclException.class)
                .hasMessageStartingWith(message);
    }
}
