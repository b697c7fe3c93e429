import { expect, test } from "@playwright/test";
import { ProjectPage } from "./pages/project-page";
import { ServiceAccountsPage } from "./pages/service-accounts-page";
import { expectCells, saveScreenshot } from "./support/checks";
import { PERSONAS, SIGNED_OUT, storageStateOf } from "./support/personas";

// A service account gets a project role and a token; the token alone speaks
// for it at the REST API, reaches that project and nothing else, and stops
// working the moment it is revoked.

const TOKEN_LABEL = "Service account token";

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
    await expect(accounts.card("e2e-bot")).toContainText("No tokens. Mint one to use the API as this account.");
    // Before any role, minting says what its token could do: nothing but say who it is.
    await expect(accounts.card("e2e-bot")).toContainText("Project roles: none yet: its tokens can do nothing but say who they are");
    const early = await accounts.openMintToken("e2e-bot");
    await expect(early.root).toContainText("It holds no project role, so a token can do nothing yet but say who it is (GET /api/v1/me).");
    await expect(early.root).toContainText("Set a role with “Set project role” on this card");
    await early.cancel();

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
    await expect(accounts.card("e2e-bot")).toContainText("Project roles: Detector training (viewer)");
    // The ready example names this portal's API and a placeholder, never a token.
    await expect(accounts.card("e2e-bot").getByTestId("token-example")).toHaveText(/^curl -H 'Authorization: Bearer \$ALLOT_TOKEN' http:\/\/[^ ]+\/api\/v1\/tenants\/vision-lab\/projects\/detector-training\/quota$/);
    const mint = await accounts.openMintToken("e2e-bot");
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
    await saveScreenshot(page, "service-accounts-with-new-token");
    await mint.done();
    await expectCells(accounts.tokenRow("e2e-bot", prefix!), [`allot_${prefix}_…`, /\d{4}$/, /UTC$/, "never", "active"]);

    // Shown once: opening the dialog again offers a fresh form, not the old token.
    const again = await accounts.openMintToken("e2e-bot");
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

    const revoke = await accounts.openRevokeToken("e2e-bot", prefix!);
    await revoke.submit("Revoke token");
    await expect(revoke.root).toBeHidden();
    await expectCells(accounts.tokenRow("e2e-bot", prefix!), [`allot_${prefix}_…`, /\d{4}$/, /UTC$/, /./, "revoked"]);

    const refused = await api.get("/api/v1/tenants/vision-lab/projects/detector-training");
    expect(refused.status()).toBe(401);
    expect(await refused.json()).toMatchObject({ error: { code: "unauthenticated" } });
    await api.dispose();

    // Roles are set from the account's own page too: member replaces viewer on Detector training.
    await accounts.card("e2e-bot").getByRole("button", { name: "Set project role", exact: true }).click();
    const setRole = page.getByRole("dialog", { name: "Set a project role for e2e-bot" });
    await setRole.getByLabel("Project", { exact: true }).selectOption({ label: "Detector training" });
    await setRole.getByLabel("Role", { exact: true }).selectOption("member");
    await setRole.getByRole("button", { name: "Set role", exact: true }).click();
    await expect(setRole).toBeHidden();
    await expect(accounts.card("e2e-bot")).toContainText("Project roles: Detector training (member)");
    await saveScreenshot(page, "service-account-roles");
  });
});
