package dev.tenure.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.netty.shaded.io.netty.util.ResourceLeakDetector;
import io.grpc.netty.shaded.io.netty.util.ResourceLeakDetector.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class LeakDetectionTest {
    private Level before;

    @BeforeEach
    void remember() {
        before = ResourceLeakDetector.getLevel();
        System.clearProperty(LeakDetection.LEVEL_PROPERTY);
        System.clearProperty(LeakDetection.LEGACY_LEVEL_PROPERTY);
    }

    @AfterEach
    void restore() {
        System.clearProperty(LeakDetection.LEVEL_PROPERTY);
        System.clearProperty(LeakDetection.LEGACY_LEVEL_PROPERTY);
        ResourceLeakDetector.setLevel(before);
    }

    @Test
    void withNoLevelAskedForLeakDetectionIsTurnedOff() {
        ResourceLeakDetector.setLevel(Level.SIMPLE);

        LeakDetection.offUnlessAsked();

        assertThat(ResourceLeakDetector.getLevel()).isEqualTo(Level.DISABLED);
        assertThat(ResourceLeakDetector.isEnabled()).isFalse();
    }

    @Test
    void aLevelNamedByEitherPropertyStays() {
        for (String property : new String[] {LeakDetection.LEVEL_PROPERTY, LeakDetection.LEGACY_LEVEL_PROPERTY}) {
            ResourceLeakDetector.setLevel(Level.PARANOID);
            System.setProperty(property, "paranoid");

            LeakDetection.offUnlessAsked();

            assertThat(ResourceLeakDetector.getLevel()).as(property).isEqualTo(Level.PARANOID);
            System.clearProperty(property);
        }
    }
}
