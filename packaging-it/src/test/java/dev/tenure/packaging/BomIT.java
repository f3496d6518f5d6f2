package dev.tenure.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The BOM names every artifact the build publishes, at the build's version, and nothing else: a
 * module added without a BOM entry would leave its users to pick a version by hand, and pick
 * wrong.
 */
class BomIT {

    /** Modules that publish nothing: the BOM itself, these tests and the examples. */
    private static final List<String> UNPUBLISHED = List.of("bom", "packaging-it", "examples/spring-boot-scheduler");

    private static final Path ROOT = Path.of(System.getProperty("tenure.root", ".."));

    @Test
    void theBomManagesEveryPublishedModuleAtTheBuildsVersion() throws Exception {
        Document root = parse(ROOT.resolve("pom.xml"));
        String version = child(root.getDocumentElement(), "version");
        TreeSet<String> published = new TreeSet<>();
        // The <modules> list only: plugin configurations have <module> elements of their own
        // (Checkstyle's rules).
        Element modules = (Element)
                root.getDocumentElement().getElementsByTagName("modules").item(0);
        for (String module : texts(modules, "module")) {
            if (!UNPUBLISHED.contains(module)) {
                Document pom = parse(ROOT.resolve(module).resolve("pom.xml"));
                published.add(child(pom.getDocumentElement(), "artifactId"));
            }
        }

        Document bom = parse(ROOT.resolve("bom").resolve("pom.xml"));
        assertThat(child(bom.getDocumentElement(), "version")).isEqualTo(version);
        assertThat(bom.getDocumentElement().getElementsByTagName("parent").getLength())
                .as("a parent would leak the build's own dependency versions into every import")
                .isZero();
        TreeSet<String> managed = new TreeSet<>();
        NodeList deps = bom.getElementsByTagName("dependency");
        for (int i = 0; i < deps.getLength(); i++) {
            Element dep = (Element) deps.item(i);
            assertThat(child(dep, "groupId")).isEqualTo("dev.tenure");
            assertThat(child(dep, "version")).isEqualTo("${project.version}");
            managed.add(child(dep, "artifactId"));
        }
        assertThat(published).hasSizeGreaterThan(10);
        assertThat(managed).isEqualTo(published);
    }

    private static Document parse(Path pom) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        return factory.newDocumentBuilder().parse(pom.toFile());
    }

    /** The text of {@code parent}'s own child {@code name} (not a deeper one, as a parent's version). */
    private static String child(Element parent, String name) {
        NodeList children = parent.getChildNodes();
        for (int i = 0; i < children.getLength(); i++) {
            if (children.item(i) instanceof Element e && e.getTagName().equals(name)) {
                return e.getTextContent().trim();
            }
        }
        throw new AssertionError(parent.getTagName() + " has no " + name);
    }

    private static List<String> texts(Element parent, String tag) {
        List<String> out = new ArrayList<>();
        NodeList nodes = parent.getElementsByTagName(tag);
        for (int i = 0; i < nodes.getLength(); i++) {
            out.add(nodes.item(i).getTextContent().trim());
        }
        return out;
    }
}
