import { expect, test, type Page } from "@playwright/test";
import { ProjectPage } from "./pages/project-page";
import { ServiceAccountPage } from "./pages/service-account-page";
import { ServiceAccountsPage } from "./pages/service-accounts-page";
import { expectCells, expectNotFound, NARROW, saveScreenshot, sidewaysOverflow, WIDE } from "./support/checks";
import { PERSONAS, SIGNED_OUT, storageStateOf } from "./support/personas";

// A service account gets a project role and a token on its own page; the token
// alone speaks for it at the REST API, reaches that project and nothing else,
// and stops working the moment it is revoked. An account with no role can get
// one in the same step as its first token.

const TOKEN_LABEL = "Service account token";

/** Screenshots at both widths, and nothing scrolls sideways on a phone. */
async function look(page: Page, name: string) {
  await saveScreenshot(page, name);
  await page.setViewportSize(NARROW);
  expect(await sidewaysOverflow(page), `${name} scrolls sideways at 390 px`).toBe(0);
  await page.setViewportSize(WIDE);
}

test.describe("Alex, tenant admin of Vision Lab", () => {
  test.use({ storageState: storageStateOf("alex") });

  test("creates a service account, grants it Detector training, and its token works at the API until revoked", async ({ page, playwright }) => {
    const accounts = new ServiceAccountsPage(page);
    await accounts.goto("vision-lab", "Vision Lab");
    const create = await accounts.openNewAccount();
    await create.field("Name").fill("e2e-bot");
    await create.field("Description").fill("Runs the end-to-end journeys.");
    await create.submit("Create");
    await expect(create.root).toBeHidden();
    // The list is compact: state, roles and tokens at a glance; everything else is on the account's page.
    await expect(accounts.row("e2e-bot")).toContainText(/active\s*no project role\s*no active token/);
    await expect(accounts.row("e2e-bot")).toContainText("Runs the end-to-end journeys.");
    await look(page, "service-accounts-list");

    let account = await accounts.openAccount("e2e-bot");
    await expect(page.getByRole("navigation", { name: "Breadcrumb" })).toHaveText(/My tenants\s*\/\s*Vision Lab\s*\/\s*Service accounts/);
    await expect(account.section("About")).toContainText("Runs the end-to-end journeys.");
    await expect(account.section("Project roles")).toContainText("None yet: its tokens can do nothing but say who they are.");
    await expect(account.section("Tokens")).toContainText("No tokens yet. Mint one to use the API as this account");
    await expect(account.example).toHaveText(/^curl -H 'Authorization: Bearer \$ALLOT_TOKEN' http:\/\/[^ ]+\/api\/v1\/me$/);
    await expect(account.section("Recent activity")).toContainText("service_account.created");
    await look(page, "service-account-empty");
    // Before any role, minting says what its token could do: nothing but say who it is, unless a role is chosen with it.
    const early = await account.openMintToken("e2e-bot");
    await expect(early.root).toContainText("It holds no project role, so a token minted without one can do nothing but say who it is (GET /api/v1/me).");
    await expect(early.field("Project role (optional)")).toHaveValue("");
    await early.cancel();

    // A role from the project's page shows on the account's page.
    const project = new ProjectPage(page);
    await project.goto("vision-lab", "detector-training", "Detector training");
    const grant = await project.openGrantAccess();
    await grant.field("Who").selectOption({ label: "e2e-bot (service account)" });
    await grant.field("Role").selectOption("viewer");
    await grant.submit("Grant");
    await expect(grant.root).toBeHidden();
    const botRow = project.accessRow("e2e-bot");
    await expectCells(botRow, ["e2e-bot", /^viewer\b/, "project grant", "never", PERSONAS.alex.name]);
    // A service account belongs to the tenant: never badged as an external collaborator.
    await expect(botRow.getByRole("cell").nth(1)).toHaveText(/^viewer\s+service account$/);
    await saveScreenshot(page, "project-access-with-service-account");

    await accounts.goto("vision-lab", "Vision Lab");
    await expect(accounts.row("e2e-bot")).toContainText("1 project role");
    account = await accounts.openAccount("e2e-bot");
    await expect(account.section("Project roles")).toContainText("Detector training (viewer)");
    // The ready example names this portal's API and a placeholder, never a token.
    await expect(account.example).toHaveText(/^curl -H 'Authorization: Bearer \$ALLOT_TOKEN' http:\/\/[^ ]+\/api\/v1\/tenants\/vision-lab\/projects\/detector-training\/quota$/);
    const mint = await account.openMintToken("e2e-bot");
    // It holds a role: the dialog offers none, and says what the token will do.
    await expect(mint.root).toContainText("A token acts with its roles: Detector training (viewer).");
    await expect(mint.field("Project role (optional)")).toHaveCount(0);
    await mint.field("Expires in (days)").fill("30");
    await mint.submit("Mint token");
    const token = await mint.revealed(TOKEN_LABEL);
    const prefix = /^allot_([a-z0-9]{12})_[A-Za-z0-9_-]{43}$/.exec(token)?.[1];
    expect(prefix, `a well-formed token: ${token.slice(0, 20)}…`).toBeDefined();
    await expect(mint.reveal).toContainText("it is stored only as a hash and cannot be shown again");
    // In the one-time view the example carries the token itself.
    const example = (await mint.reveal.getByTestId("reveal-example").textContent()) ?? "";
    expect(example).toContain(`Bearer ${token}'`);
    const quotaUrl = /(http:\/\/\S+\/quota)$/.exec(example)?.[1];
    expect(quotaUrl, example).toBeDefined();
    await look(page, "service-account-new-token");
    await mint.done();
    await expectCells(account.tokenRow("e2e-bot", prefix!), [`allot_${prefix}_…`, /\d{4}$/, /UTC$/, "never", "active"]);

    // Shown once: opening the dialog again offers a fresh form, not the old token.
    const again = await account.openMintToken("e2e-bot");
    await expect(again.field("Expires in (days)")).toHaveValue("90");
    await expect(again.reveal).toHaveCount(0);
    await expect(again.root).not.toContainText(token);
    await again.cancel();

    // An API client with no cookies at all: only the bearer token speaks for it.
    const api = await playwright.request.newContext({ storageState: SIGNED_OUT, extraHTTPHeaders: { Authorization: `Bearer ${token}` } });
    expect((await api.storageState()).cookies).toEqual([]);
    const granted = await api.get("/api/v1/tenants/vision-lab/projects/detector-training");
    expect(granted.status()).toBe(200);
    expect(await granted.json()).toMatchObject({ slug: "detector-training", name: "Detector training", roles: ["project_viewer"] });
    // The example's request works as shown.
    expect((await api.get(quotaUrl!)).status()).toBe(200);
    const otherTenant = await api.get("/api/v1/tenants/language-models/projects/chat-eval");
    expect(otherTenant.status()).toBe(404);
    expect(await otherTenant.json()).toMatchObject({ error: { code: "not_found" } });

    const revoke = await account.openRevokeToken("e2e-bot", prefix!);
    await revoke.submit("Revoke token");
    await expect(revoke.root).toBeHidden();
    await expectCells(account.tokenRow("e2e-bot", prefix!), [`allot_${prefix}_…`, /\d{4}$/, /UTC$/, /./, "revoked"]);

    const refused = await api.get("/api/v1/tenants/vision-lab/projects/detector-training");
    expect(refused.status()).toBe(401);
    expect(await refused.json()).toMatchObject({ error: { code: "unauthenticated" } });
    await api.dispose();

    // Roles are set from the account's own page too: member replaces viewer on Detector training.
    const setRole = await account.openSetRole("e2e-bot");
    await setRole.field("Project").selectOption({ label: "Detector training" });
    await setRole.field("Role").selectOption("member");
    await setRole.submit("Set role");
    await expect(setRole.root).toBeHidden();
    await expect(account.section("Project roles")).toContainText("Detector training (member)");
    // Its history tells all of it, newest first.
    await expect(account.section("Recent activity").locator("tbody tr").first()).toContainText("project_grant.changed");
    await expect(account.section("Recent activity")).toContainText("api_token.revoked");
    await look(page, "service-account-roles");
  });

  test("gives an account with no role its first token and a role in one step, and the token works at once", async ({ page, playwright }) => {
    const accounts = new ServiceAccountsPage(page);
    await accounts.goto("vision-lab", "Vision Lab");
    const create = await accounts.openNewAccount();
    await create.field("Name").fill("e2e-meter");
    await create.submit("Create");
    await expect(create.root).toBeHidden();

    const account = await accounts.openAccount("e2e-meter");
    const mint = await account.openMintToken("e2e-meter");
    await mint.field("Project role (optional)").selectOption({ label: "Detector training" });
    await mint.field("Role on that project").selectOption("meter");
    await mint.field("Expires in (days)").fill("7");
    await look(page, "service-account-mint-with-role");
    await mint.submit("Mint token");
    const token = await mint.revealed(TOKEN_LABEL);
    await expect(mint.root).toContainText("Role meter on Detector training set and token created.");
    await expect(mint.reveal).toContainText("A token may push usage for Detector training (meter), and do nothing else.");
    // The example is filled for the role just set, with the token itself.
    const example = (await mint.reveal.getByTestId("reveal-example").textContent()) ?? "";
    expect(example).toMatch(new RegExp(`^curl -X POST -H 'Authorization: Bearer ${token}' -H 'Content-Type: application/json' -d '\\{"samples":\\[\\{"tenant":"vision-lab","project":"detector-training",.*\\}\\]\\}' http://\\S+/api/v1/usage$`));
    await mint.done();
    await expect(account.section("Project roles")).toContainText("Detector training (meter)");
    await expect(account.example).toContainText("/api/v1/usage");

    const api = await playwright.request.newContext({ storageState: SIGNED_OUT, extraHTTPHeaders: { Authorization: `Bearer ${token}` } });
    // A meter pushes usage and reads nothing, not even the project.
    expect((await api.get("/api/v1/tenants/vision-lab/projects/detector-training")).status()).toBe(404);
    expect(await (await api.get("/api/v1/me")).json()).toMatchObject({ kind: "service_account", displayName: "e2e-meter" });
    await api.dispose();
  });
});

// After the journeys above, which made e2e-bot with a member role on Detector training.
test.describe("the account's page for others", () => {
  test("shows Dana, a member of Vision Lab, the account and its roles, but not its tokens or history", async ({ browser }) => {
    const context = await browser.newContext({ storageState: storageStateOf("dana") });
    const page = await context.newPage();
    const account = new ServiceAccountPage(page);
    await account.goto("vision-lab", "e2e-bot");
    await expect(account.section("Project roles")).toContainText("Detector training (member)");
    await expect(account.section("Tokens")).toHaveCount(0);
    await expect(account.section("Recent activity")).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Set project role" })).toHaveCount(0);
    await context.close();
  });

  test("is not found for Bo of another tenant, and for an account that does not exist", async ({ browser }) => {
    const bo = await browser.newContext({ storageState: storageStateOf("bo") });
    const page = await bo.newPage();
    await expectNotFound(page, await page.goto("/tenants/vision-lab/service-accounts/e2e-bot"));
    await expect(page.locator("body")).not.toContainText("e2e-bot");
    await bo.close();
    const alex = await browser.newContext({ storageState: storageStateOf("alex") });
    const own = await alex.newPage();
    await expectNotFound(own, await own.goto("/tenants/vision-lab/service-accounts/no-such-account"));
    await expectNotFound(own, await own.goto("/tenants/vision-lab/service-accounts/Not_A_Name"));
    await alex.close();
  });
});
