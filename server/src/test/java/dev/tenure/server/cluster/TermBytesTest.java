package dev.tenure.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.core.Limits;
import dev.tenure.server.config.ServerConfig;
import org.junit.jupiter.api.Test;

/** The term length a node sizes its log and publications to, from the largest request its limits let in. */
class TermBytesTest {

    @Test
    void theDefaultLimitsLargestRequestGetsTwoMiBTerms() {
        int messageBytesMax = ServerConfig.messageBytesMaxFor(Limits.defaults());
        assertThat(messageBytesMax).isEqualTo(131_072);
        assertThat(AeronContexts.termBytesFor(messageBytesMax)).isEqualTo(2_097_152);
        assertThat(AeronContexts.PUBLICATION_TERM_BYTES).isEqualTo(2_097_152);
    }

    @Test
    void aTermHoldsEightTimesTheLargestRequestTwiceOverRoundedUpToAPowerOfTwo() {
        assertThat(AeronContexts.termBytesFor(131_073)).isEqualTo(4_194_304);
        // The value size at which the terms are the 8 MiB every log had before they were sized.
        int valueBytesMax = 448 * 1024;
        assertThat(AeronContexts.termBytesFor(
                        ServerConfig.messageBytesMaxFor(Limits.defaults().with("valueBytesMax", valueBytesMax))))
                .isEqualTo(8_388_608);
    }

    @Test
    void aTermStaysWithinWhatAeronAllows() {
        assertThat(AeronContexts.termBytesFor(1)).isEqualTo(65_536);
        assertThat(AeronContexts.termBytesFor(Integer.MAX_VALUE)).isEqualTo(1_073_741_824);
    }
}
