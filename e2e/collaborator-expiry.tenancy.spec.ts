import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { CollaboratorsPage } from "./pages/collaborators-page";
import { HomePage } from "./pages/home-page";
import { InvitationPage } from "./pages/invitation-page";
import { ProjectPage } from "./pages/project-page";
import { TenantPage } from "./pages/tenant-page";
import { expectNotFound, expectRows, formatDay, saveScreenshot } from "./support/checks";
import { DAY_MS, resetServerClock, shiftServerClock, utcDayFromNow } from "./support/clock";
import { IDP_ACCOUNTS, runOidcProviderForThisFile } from "./support/oidc-provider";
import { PERSONAS, SIGNED_OUT, storageStateOf } from "./support/personas";

// An external collaborator reaches one project until the grant's expiry
// instant, checked on every request: the server's clock is moved past it.

runOidcProviderForThisFile();

// One journey in five steps that share Carl's browser, run in order
// (serial). Each step has its own test budget: the whole journey (an OIDC
// sign-in and some fifteen page loads) took more than one 30 s budget on a
// loaded machine, which is how it flaked; no step waits on time, each waits on
// what the page shows, and the clock moves only through the test clock file.
test.describe.serial("Alex, tenant admin of Vision Lab, invites a collaborator to Segmentation research for two days", () => {
  test.use({ storageState: storageStateOf("alex") });

  const carl = IDP_ACCOUNTS["collab-1"];
  // Access ends at the start of this UTC day: between one and two days from now.
  const expiryDay = utcDayFromNow(2);
  const until = formatDay(new Date(expiryDay));
  let link = "";
  let carlContext: BrowserContext | undefined;
  let carlPage: Page;

  test.afterEach(() => resetServerClock());
  test.afterAll(async () => {
    resetServerClock();
    await carlContext?.close();
  });

  test("Alex creates the invitation with an expiry day", async ({ page }) => {
    const project = new ProjectPage(page);
    await project.goto("vision-lab", "segmentation-research", "Segmentation research");
    const dialog = await project.openInviteCollaborator();
    await dialog.field("Email").fill(carl.email);
    await dialog.field("Role").selectOption("member");
    await dialog.field("Access expires").fill(expiryDay);
    await dialog.submit("Create invitation");
    link = await dialog.revealed("Invitation link (single use)");
    await dialog.done();
  });

  test("Carl signs in through the invitation, accepts it and reaches that one project", async ({ browser }) => {
    carlContext = await browser.newContext({ storageState: SIGNED_OUT });
    carlPage = await carlContext.newPage();
    const invitation = new InvitationPage(carlPage);
    await invitation.openSignedOutAndSignIn(link, "collab-1");
    await expect(invitation.offer).toHaveText(`You are invited to the project Segmentation research of Vision Lab as an external collaborator (member), until ${until}.`);
    await invitation.acceptButton.click();

    await expect(carlPage).toHaveURL("/tenants/vision-lab/projects/segmentation-research");
    const carlProject = new ProjectPage(carlPage);
    await expect(carlProject.heading).toHaveText("Segmentation research");
    await expect(carlProject.subtitle).toContainText("your role: Collaborator (member)");
  });

  test("Carl's home shows the project until the expiry day, and nothing else of the tenant exists for him", async () => {
    const home = new HomePage(carlPage);
    await home.goto();
    await expect(home.heading).toHaveText("Welcome, Carl");
    await expect(home.tenantNames).toHaveText(["Vision Lab"]);
    await expect(home.tenantBadge("Vision Lab", "Collaborator")).toBeVisible();
    await expect(home.tenantCard("Vision Lab").getByRole("link", { name: "Open tenant" })).toHaveCount(0);
    await expect(home.projectLinks("Vision Lab")).toHaveText(["Segmentation research"]);
    const item = home.projectItem("Vision Lab", "Segmentation research");
    await expect(item).toContainText("Collaborator (member)");
    await expect(item.getByText(/^until /)).toHaveText(`until ${until}`);
    await saveScreenshot(carlPage, "home-collaborator-before-expiry");
    await expectNotFound(carlPage, await carlPage.goto("/tenants/vision-lab"));
    await expectNotFound(carlPage, await carlPage.goto("/tenants/vision-lab/projects/detector-training"));
  });

  test("Alex sees him on the Collaborators tab, with Alex as sponsor", async ({ page }) => {
    const tenant = new TenantPage(page);
    await tenant.goto("vision-lab", "Vision Lab");
    await tenant.tab("Collaborators").click();
    await expect(page).toHaveURL("/tenants/vision-lab/collaborators");
    const collaborators = new CollaboratorsPage(page);
    await expectRows(collaborators.rows, [[`${carl.name}${carl.email}`, "Segmentation research", "member", until, PERSONAS.alex.name]]);
    await saveScreenshot(page, "collaborators-tab");
  });

  test("three days on he reaches nothing, and the grant is still there, marked expired", async ({ page }) => {
    // His session outlives the shift (ALLOT_SESSION_HOURS=720): what ends is the grant.
    shiftServerClock(3 * DAY_MS);
    await expectNotFound(carlPage, await carlPage.goto("/tenants/vision-lab/projects/segmentation-research"));
    const home = new HomePage(carlPage);
    await home.goto();
    await expect(home.heading).toHaveText("Welcome, Carl");
    await expect(home.noTenants).toBeVisible();
    await expect(home.tenantNames).toHaveCount(0);
    await saveScreenshot(carlPage, "home-collaborator-after-expiry");
    const collaborators = new CollaboratorsPage(page);
    await collaborators.goto("vision-lab", "Vision Lab");
    await expectRows(collaborators.rows, [[`${carl.name}${carl.email}`, "Segmentation research", "member", `${until} expired`, PERSONAS.alex.name]]);
  });

  test("back in real time the expiry is ahead again and his access returns: it is checked at request time, no job removed the grant", async () => {
    resetServerClock();
    const carlProject = new ProjectPage(carlPage);
    await carlProject.goto("vision-lab", "segmentation-research", "Segmentation research");
    await expect(carlProject.subtitle).toContainText("your role: Collaborator (member)");
    const home = new HomePage(carlPage);
    await home.goto();
    await expect(home.projectLinks("Vision Lab")).toHaveText(["Segmentation research"]);
  });
});
