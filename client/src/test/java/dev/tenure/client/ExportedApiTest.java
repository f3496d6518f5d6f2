package dev.tenure.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The exported packages' public signatures name no type of the transport (gRPC, Netty), of the
 * wire (protobuf, the api's messages) or of the client's internal packages: the module descriptor
 * hides those packages, and a signature that named one would make them API again.
 */
class ExportedApiTest {
    private static final List<String> FOREIGN = List.of(
            "io.grpc.",
            "io.netty.",
            "com.google.protobuf.",
            "dev.tenure.api.",
            "dev.tenure.client.internal.",
            "dev.tenure.client.spi.");

    @Test
    void noPublicSignatureOfTheExportedPackagesNamesATransportWireOrInternalType() throws Exception {
        TreeSet<String> offending = new TreeSet<>();
        List<Class<?>> types = exportedPublicTypes();
        assertThat(types).as("the exported packages' public types").hasSizeGreaterThan(20);
        for (Class<?> type : types) {
            List<Type> named = new ArrayList<>();
            named.add(type.getGenericSuperclass());
            named.addAll(List.of(type.getGenericInterfaces()));
            for (var m : type.getDeclaredMethods()) {
                if (Modifier.isPublic(m.getModifiers()) || Modifier.isProtected(m.getModifiers())) {
                    named.add(m.getGenericReturnType());
                    named.addAll(List.of(m.getGenericParameterTypes()));
                    named.addAll(List.of(m.getGenericExceptionTypes()));
                }
            }
            for (var c : type.getDeclaredConstructors()) {
                if (Modifier.isPublic(c.getModifiers()) || Modifier.isProtected(c.getModifiers())) {
                    named.addAll(List.of(c.getGenericParameterTypes()));
                }
            }
            for (var f : type.getDeclaredFields()) {
                if (Modifier.isPublic(f.getModifiers()) || Modifier.isProtected(f.getModifiers())) {
                    named.add(f.getGenericType());
                }
            }
            for (Type t : named) {
                String name = t == null ? "" : t.getTypeName();
                for (String foreign : FOREIGN) {
                    if (name.contains(foreign)) {
                        offending.add(type.getName() + ": " + name);
                    }
                }
            }
        }
        assertThat(offending)
                .as("public signatures naming a foreign or internal type")
                .isEmpty();
    }

    /** The public types of dev.tenure.client and dev.tenure.client.fence, nested ones included. */
    private static List<Class<?>> exportedPublicTypes() throws IOException, URISyntaxException, ClassNotFoundException {
        Path classes = Path.of(TenureClient.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        List<Class<?>> out = new ArrayList<>();
        for (String pkg : List.of("dev/tenure/client", "dev/tenure/client/fence")) {
            List<Path> files;
            try (Stream<Path> list = Files.list(classes.resolve(pkg))) {
                files = list.filter(p -> p.toString().endsWith(".class"))
                        .sorted()
                        .toList();
            }
            for (Path file : files) {
                String name =
                        classes.relativize(file).toString().replace('/', '.').replaceAll("\\.class$", "");
                Class<?> type = Class.forName(name, false, ExportedApiTest.class.getClassLoader());
                if (Modifier.isPublic(type.getModifiers()) && !type.isSynthetic()) {
                    out.add(type);
                }
            }
        }
        return out;
    }
}
