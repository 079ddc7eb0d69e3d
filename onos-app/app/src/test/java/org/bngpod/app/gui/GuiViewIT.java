package org.bngpod.app.gui;

import com.fasterxml.jackson.databind.JsonNode;
import org.bngpod.api.InstanceStatus;
import org.bngpod.api.PlacementState;
import org.junit.After;
import org.junit.AfterClass;
import org.junit.Before;
import org.junit.BeforeClass;
import org.junit.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.bngpod.app.gui.GuiFixture.ADMIN;
import static org.bngpod.app.gui.GuiFixture.CP;
import static org.bngpod.app.gui.GuiFixture.VIEWER;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.junit.Assume.assumeTrue;

/**
 * The BNG Pod view in a real browser (Debian's chromium, headless): the
 * view's own html, js and css from the application's UiExtension, on ONOS's
 * AngularJS, with the GUI services it uses (gui-harness/onos-fw.js), talking
 * over a real websocket to the application's real message handlers on the
 * real managers (the lab pod, 24 sessions). What the page shows is read from
 * its DOM: rows, search results, an admin's action carried out, a viewer's
 * refused. Screenshots go to target/gui/ (and to -Dbngpod.gui.screenshots=DIR,
 * docs/onos/ for the docs).
 *
 * <p>Needs chromium and the npm packages scripts/setup.sh installs; without
 * them it is skipped with the reason, unless BNGPOD_REQUIRE_POD=1
 * (environment or -D), which makes that a failure.</p>
 */
public class GuiViewIT {

    private static final Duration WAIT = Duration.ofSeconds(15);
    private static final int SESSIONS = 24;

    private static Path angular;
    private static Chromium chromium;
    private static Path out;
    private GuiFixture fx;
    private GuiHarness harness;

    private static boolean required() {
        return "1".equals(System.getenv("BNGPOD_REQUIRE_POD"))
                || "1".equals(System.getProperty("BNGPOD_REQUIRE_POD"));
    }

    @BeforeClass
    public static void start() throws Exception {
        angular = Paths.get(System.getProperty("bngpod.gui.npm", "src/test/gui-harness/node_modules"));
        String why = null;
        if (Chromium.find().isEmpty()) {
            why = "no chromium (apt-get install chromium, or make setup)";
        } else if (!Files.isRegularFile(angular.resolve("angular/angular.js"))
                || !Files.isRegularFile(angular.resolve("angular-route/angular-route.js"))) {
            why = "no AngularJS at " + angular + " (make setup: npm ci in onos-app/app/src/test/gui-harness)";
        }
        if (why != null) {
            if (required()) {
                fail("the GUI view's browser test cannot run: " + why);
            }
            assumeTrue("GUI view browser test skipped: " + why + " (BNGPOD_REQUIRE_POD=1 makes this a failure)",
                       false);
        }
        out = Paths.get(System.getProperty("bngpod.gui.out", "target/gui"));
        Files.createDirectories(out);
        chromium = new Chromium(Chromium.find().orElseThrow(), out.resolve("chromium.log"));
    }

    @AfterClass
    public static void stop() {
        if (chromium != null) {
            chromium.close();
        }
    }

    /** Each test on a pod of its own: the lab pod as stated, 24 sessions. */
    @Before
    public void setUp() throws Exception {
        fx = new GuiFixture();
        fx.sessions(SESSIONS);
        harness = new GuiHarness(BngPodUi.extension(), fx.directory(), angular);
    }

    @After
    public void tearDown() {
        harness.close();
        fx.close();
    }

    /** Opens the view as a user and waits until the three tables have their rows. */
    private Chromium.Page open(String user) {
        Chromium.Page page = chromium.newPage(1500, 900);
        page.navigate(harness.login(user));
        waitFor(page, "document.querySelectorAll('#bngpod-instances tbody tr.ng-scope:not(.no-data)').length === 4",
                     WAIT);
        waitFor(page, "document.querySelectorAll('#bngpod-groups tbody tr.ng-scope:not(.no-data)').length === 4",
                     WAIT);
        return page;
    }

    /** The text of each cell of a table's rows. */
    private static List<List<String>> rows(Chromium.Page page, String table) {
        JsonNode v = page.eval("Array.from(document.querySelectorAll('#" + table
                                       + " tbody tr.ng-scope:not(.no-data)')).map(function (tr) {"
                                       + " return Array.from(tr.cells).map(function (td) {"
                                       + " return td.textContent.replace(/\\s+/g, ' ').trim(); }); })");
        List<List<String>> rows = new ArrayList<>();
        v.forEach(r -> {
            List<String> cells = new ArrayList<>();
            r.forEach(c -> cells.add(c.asText()));
            rows.add(cells);
        });
        return rows;
    }

    private static List<String> row(Chromium.Page page, String table, String first) {
        return rows(page, table).stream().filter(r -> r.get(0).equals(first)).findFirst()
                .orElseThrow(() -> new AssertionError("no row " + first + " in " + table + ": "
                                                              + rows(page, table)));
    }

    private static void search(Chromium.Page page, String text) {
        page.eval("(function () { var i = document.querySelector('#bngpod-sessions input');"
                          + " i.value = " + GuiFixture.MAPPER.valueToTree(text) + ";"
                          + " i.dispatchEvent(new Event('input'));"
                          + " document.querySelector('#bngpod-sessions button[type=submit]').click(); })()");
    }

    private static void screenshot(Chromium.Page page, String name) throws IOException {
        Path file = out.resolve(name);
        page.screenshot(file);
        String docs = System.getProperty("bngpod.gui.screenshots", "");
        if (!docs.isEmpty()) {
            Files.copy(file, Paths.get(docs).resolve(name), StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private void assertClean(Chromium.Page page) {
        assertEquals("harness (server side)", List.of(), harness.failures());
        assertEquals("harness (page side)", "[]", page.eval("JSON.stringify(window.bngpodHarness.failures)")
                .asText());
        assertEquals("page problems", List.of(), page.problems());
    }

    @Test
    public void viewerSeesTheTablesAndSearches() throws IOException {
        Chromium.Page page = open(VIEWER);
        waitFor(page, "document.querySelectorAll('#bngpod-sessions tbody tr.ng-scope:not(.no-data)').length === "
                             + SESSIONS, WAIT);

        List<String> dp1 = row(page, "bngpod-instances", "1");
        assertEquals(List.of("1", "dp1", "up", "lg1", "6", "12.5 Gbit/s"), dp1.subList(0, 6));
        assertEquals("srv1 (49)", dp1.get(8));
        assertEquals(9, dp1.size()); // no action column for a viewer
        List<String> lg1 = row(page, "bngpod-groups", "lg1");
        assertEquals("dp1 (1)", lg1.get(1));
        assertEquals(fx.bed.placement.placementOf("lg1").orElseThrow().reasonKind(), lg1.get(2));
        assertEquals(fx.bed.placement.placementOf("lg1").orElseThrow().reason(), lg1.get(3));
        List<String> s0 = row(page, "bngpod-sessions", "cp1-00000001");
        assertEquals(List.of("cp1-00000001", "user0", "100.80.0.2", "access1:100.1", "lg1", "dp1"),
                     s0.subList(0, 6));
        assertEquals("40.0 Mbit/s*", s0.get(9));   // its own rate, marked
        assertEquals("26.7 kbit/s", s0.get(11));
        assertEquals("1.00 MB", s0.get(13));
        assertTrue(page.eval("document.querySelector('#bngpod-instances .bngpod-note').textContent")
                           .asText().contains("noc: read only"));
        assertEquals(0, page.eval("document.querySelectorAll('#ov-bngpod button.down, #ov-bngpod button.up,"
                                          + " #ov-bngpod button.rebalance').length").asInt());
        screenshot(page, "gui-bngpod-viewer.png");

        search(page, "user1");
        waitFor(page, "document.querySelectorAll('#bngpod-sessions tbody tr.ng-scope:not(.no-data)').length === 11",
                     WAIT);
        search(page, "100.80.4.3");
        waitFor(page, "document.querySelectorAll('#bngpod-sessions tbody tr.ng-scope:not(.no-data)').length === 1"
                             + " && document.querySelector('#bngpod-sessions td.user').textContent === 'user1'", WAIT);
        search(page, "access3:300.2003");
        waitFor(page, "document.querySelectorAll('#bngpod-sessions tbody tr.ng-scope:not(.no-data)').length === 1"
                             + " && document.querySelector('#bngpod-sessions td.line').textContent"
                             + " === 'access3:300.2003'", WAIT);
        assertTrue(page.eval("document.querySelector('#bngpod-sessions .count').textContent").asText()
                           .contains("1 shown of 1 matching, 24 sessions"));
        search(page, "nobody");
        waitFor(page, "document.querySelector('#bngpod-sessions tr.no-data') &&"
                             + " document.querySelector('#bngpod-sessions tr.no-data').textContent.trim()"
                             + " === 'No session matches \"nobody\"'", WAIT);
        assertClean(page);
        page.close();
    }

    /** The view hides the buttons from a viewer; an action sent anyway is refused by the handler. */
    @Test
    public void viewersActionIsSentAndRefused() {
        Chromium.Page page = open(VIEWER);
        PlacementState before = fx.bed.placement.placement();
        // what a click would do, through the view's own scope
        page.eval("(function () { var s = angular.element(document.getElementById('ov-bngpod')).scope();"
                          + " s.$apply(function () { s.ask('instanceDown', {id: '1', name: 'dp1'}); }); })()");
        waitFor(page, "document.querySelector('.bngpod-confirm .question').textContent.indexOf('Declare dp1 dead?')"
                             + " === 0", WAIT);
        page.eval("document.querySelector('.bngpod-confirm button.confirm').click()");
        JsonNode shown = waitFor(page, "document.querySelector('.bngpod-result.refused')"
                                              + " && document.querySelector('.bngpod-result').textContent.trim()",
                                      WAIT);
        assertEquals("Refused: declaring an instance dead needs the role admin (user noc has viewer)",
                     shown.asText().replaceAll("\\s+", " "));
        assertTrue(harness.events().contains(VIEWER + " bngpodActionRequest"));
        assertEquals(before, fx.bed.placement.placement());
        assertEquals("up", row(page, "bngpod-instances", "1").get(2));
        assertClean(page);
        page.close();
    }

    @Test
    public void adminDeclaresAnInstanceDeadAndAlive() throws IOException {
        Chromium.Page page = open(ADMIN);
        assertTrue(page.eval("document.querySelector('#bngpod-instances .bngpod-note').textContent")
                           .asText().contains("ops: may act"));
        // dp2's "Down" button, then Confirm
        page.eval("Array.from(document.querySelectorAll('#bngpod-instances tbody tr')).filter(function (tr) {"
                          + " return tr.cells[1] && tr.cells[1].textContent === 'dp2'; })[0]"
                          + ".querySelector('button.down').click()");
        waitFor(page, "document.querySelector('.bngpod-confirm .question')", WAIT);
        screenshot(page, "gui-bngpod-confirm.png");
        page.eval("document.querySelector('.bngpod-confirm button.confirm').click()");
        waitFor(page, "document.querySelector('.bngpod-result') && !document.querySelector('.bngpod-result.refused')"
                             + " && document.querySelector('.bngpod-result').textContent.indexOf('dp2 declared dead')"
                             + " >= 0", WAIT);
        InstanceStatus dp2 = fx.bed.placement.placement().instance(2).orElseThrow();
        assertFalse(dp2.available());
        assertEquals("declared dead from the GUI by ops", dp2.reason().orElseThrow());
        Integer lg2 = fx.bed.instanceOf("lg2");
        waitFor(page, "Array.from(document.querySelectorAll('#bngpod-instances tbody tr')).some(function (tr) {"
                             + " return tr.cells[1] && tr.cells[1].textContent === 'dp2'"
                             + " && tr.classList.contains('dead'); })", WAIT);
        List<String> row = row(page, "bngpod-instances", "2");
        assertEquals("down operator: declared dead from the GUI by ops", row.get(2));
        assertEquals("-", row.get(3));
        assertEquals("Up", row.get(9));
        assertEquals("dp" + lg2 + " (" + lg2 + ")", row(page, "bngpod-groups", "lg2").get(1));
        assertEquals("MOVED", row(page, "bngpod-groups", "lg2").get(2));
        screenshot(page, "gui-bngpod-failover.png");

        page.eval("Array.from(document.querySelectorAll('#bngpod-instances tbody tr')).filter(function (tr) {"
                          + " return tr.cells[1] && tr.cells[1].textContent === 'dp2'; })[0]"
                          + ".querySelector('button.up').click()");
        page.eval("document.querySelector('.bngpod-confirm button.confirm').click()");
        waitFor(page, "Array.from(document.querySelectorAll('#bngpod-instances tbody tr')).some(function (tr) {"
                             + " return tr.cells[1] && tr.cells[1].textContent === 'dp2'"
                             + " && !tr.classList.contains('dead'); })", WAIT);
        assertTrue(fx.bed.placement.placement().instance(2).orElseThrow().available());
        assertClean(page);
        page.close();
    }

    /** A control plane's user gets no rows, only the refusal. */
    @Test
    public void controlPlaneUserSeesNothing() {
        Chromium.Page page = chromium.newPage(1500, 900);
        page.navigate(harness.login(CP));
        JsonNode msg = waitFor(page, "document.querySelector('#bngpod-instances tr.no-data')"
                                            + " && document.querySelector('#bngpod-instances tr.no-data')"
                                            + ".textContent.trim()", WAIT);
        assertEquals("seeing the BNG pod view needs the role admin or viewer (user bngcp has bngpod-cp)",
                     msg.asText());
        assertEquals(0, page.eval("document.querySelectorAll('#bngpod-sessions tbody tr.ng-scope:not(.no-data)')"
                                          + ".length").asInt());
        assertClean(page);
        page.close();
    }

    /** The harness is as strict as it says: an event no handler takes, and one the page cannot handle, fail. */
    @Test
    public void harnessFailsLoudly() {
        Chromium.Page page = open(VIEWER);
        page.eval("angular.element(document.body).injector().get('WebSocketService')"
                          + ".sendEvent('bngpodNoSuchRequest', {})");
        assertEquals(List.of("No GUI message handler for type bngpodNoSuchRequest"),
                     waitForFailures());
        harness.clearFailures();
        page.eval("angular.element(document.body).injector().get('WebSocketService')"
                          + ".bindHandlers({bngpodActionResponse: function () {}})");
        assertEquals("[\"duplicate binding of bngpodActionResponse\"]",
                     page.eval("JSON.stringify(window.bngpodHarness.failures)").asText());
        page.close();
    }

    /** Waits for an expression to be true in the page; a timeout also tells what the server saw. */
    private JsonNode waitFor(Chromium.Page page, String expression, Duration timeout) {
        try {
            return page.waitFor(expression, timeout);
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; harness: " + harness.failures() + "; events: "
                                             + harness.events(), e);
        }
    }

    private List<String> waitForFailures() {
        long end = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < end && harness.failures().isEmpty()) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return harness.failures();
    }
}
