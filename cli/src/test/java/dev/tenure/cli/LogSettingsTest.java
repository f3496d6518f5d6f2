package dev.tenure.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.TypeConversionException;

class LogSettingsTest {

    @Test
    void withoutLevelsTheRootIsInfoAndNoLoggerHasItsOwn() {
        LogSettings s = LogSettings.of(LogSettings.Format.TEXT, List.of());
        assertThat(s.rootLevel()).isEqualTo(Level.INFO);
        assertThat(s.levels()).isEmpty();
    }

    @Test
    void aBareLevelSetsTheRootAndLoggerEqualsLevelSetsOneLogger() {
        LogSettings s =
                LogSettings.of(LogSettings.Format.JSON, List.of("warn", "dev.tenure=DEBUG", "io.grpc.netty=error"));
        assertThat(s.format()).isEqualTo(LogSettings.Format.JSON);
        assertThat(s.rootLevel()).isEqualTo(Level.WARN);
        assertThat(s.levels()).isEqualTo(Map.of("dev.tenure", Level.DEBUG, "io.grpc.netty", Level.ERROR));
    }

    @Test
    void aLaterValueForTheSameLoggerWins() {
        LogSettings s = LogSettings.of(LogSettings.Format.TEXT, List.of("dev.tenure=DEBUG", "dev.tenure=OFF"));
        assertThat(s.levels()).isEqualTo(Map.of("dev.tenure", Level.OFF));
    }

    @Test
    void aLoggerRunsAtItsOwnLevelElseItsNearestPackagesElseTheRoots() {
        LogSettings s = LogSettings.of(
                LogSettings.Format.TEXT, List.of("ERROR", "dev.tenure=DEBUG", "dev.tenure.server.transport=WARN"));
        assertThat(s.effectiveLevel("dev.tenure.server.transport.ThrottledLog")).isEqualTo(Level.WARN);
        assertThat(s.effectiveLevel("dev.tenure.server.TenureServer")).isEqualTo(Level.DEBUG);
        assertThat(s.effectiveLevel("dev.tenure")).isEqualTo(Level.DEBUG);
        assertThat(s.effectiveLevel("dev.tenures.Other")).isEqualTo(Level.ERROR);
        assertThat(s.effectiveLevel("io.grpc.Server")).isEqualTo(Level.ERROR);
    }

    @Test
    void aLevelThatIsNoneIsRefusedNamingItAndTheLevels() {
        assertThatThrownBy(() -> LogSettings.of(LogSettings.Format.TEXT, List.of("dev.tenure=LOUD")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--log-level dev.tenure=LOUD: 'LOUD' is not a level;"
                        + " use one of TRACE, DEBUG, INFO, WARN, ERROR, OFF");
        assertThatThrownBy(() -> LogSettings.of(LogSettings.Format.TEXT, List.of("verbose")))
                .hasMessage("--log-level verbose: 'verbose' is not a level;"
                        + " use one of TRACE, DEBUG, INFO, WARN, ERROR, OFF");
    }

    @Test
    void aLoggerNameThatIsNoneIsRefused() {
        assertThatThrownBy(() -> LogSettings.of(LogSettings.Format.TEXT, List.of("dev..tenure=INFO")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--log-level dev..tenure=INFO: 'dev..tenure' is not a logger name"
                        + " (a package or class, such as dev.tenure.server)");
        assertThatThrownBy(() -> LogSettings.of(LogSettings.Format.TEXT, List.of("=INFO")))
                .hasMessageStartingWith("--log-level =INFO: '' is not a logger name");
    }

    @Test
    void theFormatIsTextOrJson() {
        LogSettings.FormatConverter converter = new LogSettings.FormatConverter();
        assertThat(converter.convert("text")).isEqualTo(LogSettings.Format.TEXT);
        assertThat(converter.convert("JSON")).isEqualTo(LogSettings.Format.JSON);
        assertThatThrownBy(() -> converter.convert("xml"))
                .isInstanceOf(TypeConversionException.class)
                .hasMessage("'xml' is not a log format; use text or json");
    }
}
