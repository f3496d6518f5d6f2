package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * `tenure watch` against a real node that keeps its last 4 changes: the current state, then each
 * change with the next revision; a resume after a revision prints exactly the changes after it;
 * a revision the node no longer keeps exits 3, saying to list again.
 */
class WatchIT extends OnOneNode {
    private static final Duration LINE = Duration.ofSeconds(30);

    @BeforeAll
    static void startANodeThatKeepsFourChanges() throws Exception {
        serve(new ServerProcess(data.resolve("node")).withOptions("--revisions-kept-max", "4"));
    }

    private static void ok(String... args) throws Exception {
        try (var p = tenure(args)) {
            assertThat(p.waitFor(Duration.ofSeconds(60))).as(p.output()).isZero();
        }
    }

    private static List<String> events(Processes.Running watch, int n) throws Exception {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            JsonObject e = json(watch.nextLine(LINE));
            String what = e.get("revision").getAsLong() + " " + e.get("event").getAsString();
            if (e.has("name")) {
                what += " " + e.get("name").getAsString();
            }
            if (e.has("current") && e.get("current").getAsBoolean()) {
                what += " current";
            }
            if (e.has("how")) {
                what += " " + e.get("how").getAsString();
            }
            out.add(what);
        }
        return out;
    }

    @Test
    void watchPrintsTheStateThenEachChangeAndResumesWithoutGapOrRepeat() throws Exception {
        ok("kv", "put", "w/k", "a");
        try (var watch = tenure("watch", "--prefix", "w/", "--json")) {
            assertThat(events(watch, 2)).containsExactly("1 kv_put w/k current", "1 synced");
            ok("kv", "put", "w/k", "b");
            ok("run", "w/lock", "--", "true");
            ok("kv", "put", "other", "x"); // not under w/: changes the revision, not the watch
            ok("kv", "del", "w/k");
            assertThat(events(watch, 4))
                    .containsExactly("2 kv_put w/k", "3 granted w/lock", "4 ended w/lock RELEASED", "6 kv_deleted w/k");
            try (var resumed = tenure("watch", "--prefix", "w/", "--json", "--from-revision", "3")) {
                assertThat(events(resumed, 2)).containsExactly("4 ended w/lock RELEASED", "6 kv_deleted w/k");
                ok("kv", "put", "w/k", "c");
                assertThat(events(resumed, 1)).containsExactly("7 kv_put w/k");
                assertThat(events(watch, 1)).containsExactly("7 kv_put w/k");
            }
        }
        // Kept: revisions 4 to 7; resuming after 3 still works, after 2 does not.
        try (var tooOld = tenure("watch", "w/k", "--json", "--from-revision", "2")) {
            assertThat(tooOld.waitFor(Duration.ofSeconds(60)))
                    .as(tooOld.output())
                    .isEqualTo(3);
            assertThat(tooOld.output())
                    .contains("revision compacted: revision 2 is older than this node keeps")
                    .contains("after revision 3")
                    .contains("list again");
        }
    }
}
