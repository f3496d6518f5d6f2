package dev.tenure.lab.scenario;

import dev.tenure.lab.fault.FaultMode;
import dev.tenure.lab.fault.FaultProxy;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Small steps the scenarios share. */
final class Steps {
    private Steps() {}

    /** One proxy per lock-service endpoint, for one worker's links. */
    static List<FaultProxy> proxies(ArmRun run, String worker, List<String> endpoints) throws IOException {
        List<FaultProxy> out = new ArrayList<>();
        for (int i = 0; i < endpoints.size(); i++) {
            out.add(run.proxy(worker + "-lock-" + i, endpoints.get(i)));
        }
        return out;
    }

    static List<String> endpoints(List<FaultProxy> proxies) {
        return proxies.stream().map(FaultProxy::endpoint).toList();
    }

    static void mode(List<FaultProxy> proxies, FaultMode mode) {
        proxies.forEach(p -> p.mode(mode));
    }

    static void sleepMs(long ms) throws InterruptedException {
        TimeUnit.MILLISECONDS.sleep(ms);
    }

    /** Worker options as strings. */
    static String[] opts(Object... values) {
        String[] out = new String[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = String.valueOf(values[i]);
        }
        return out;
    }
}
