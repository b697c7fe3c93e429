import { expect, test } from "@playwright/test";
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

test.afterEach(() => resetServerClock());
test.afterAll(() => resetServerClock());

test.describe("Alex, tenant admin of Vision Lab", () => {
  test.use({ storageState: storageStateOf("alex") });

  test("invites a collaborator to Segmentation research for two days; past the expiry he reaches nothing, and nothing was deleted", async ({ page, browser }) => {
    const carl = IDP_ACCOUNTS["collab-1"];
    // Access ends at the start of this UTC day: between one and two days from now.
    const expiryDay = utcDayFromNow(2);
    const until = formatDay(new Date(expiryDay));

    const project = new ProjectPage(page);
    await project.goto("vision-lab", "segmentation-research", "Segmentation research");
    const dialog = await project.openInviteCollaborator();
    await dialog.field("Email").fill(carl.email);
    await dialog.field("Role").selectOption("member");
    await dialog.field("Access expires").fill(expiryDay);
    await dialog.submit("Create invitation");
    const link = await dialog.revealed("Invitation link (single use)");
    await dialog.done();

    const carlContext = await browser.newContext({ storageState: SIGNED_OUT });
    const carlPage = await carlContext.newPage();
    const invitation = new InvitationPage(carlPage);
    await invitation.openSignedOutAndSignIn(link, "collab-1");
    await expect(invitation.offer).toHaveText(`You are invited to the project Segmentation research of Vision Lab as an external collaborator (member), until ${until}.`);
    await invitation.acceptButton.click();

    await expect(carlPage).toHaveURL("/tenants/vision-lab/projects/segmentation-research");
    const carlProject = new ProjectPage(carlPage);
    await expect(carlProject.heading).toHaveText("Segmentation research");
    await expect(carlProject.subtitle).toContainText("your role: Collaborator (member)");

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
    // Nothing else of the tenant exists for him.
    await expectNotFound(carlPage, await carlPage.goto("/tenants/vision-lab"));
    await expectNotFound(carlPage, await carlPage.goto("/tenants/vision-lab/projects/detector-training"));

    // Alex sees him on the Collaborators tab, with Alex as sponsor.
    const tenant = new TenantPage(page);
    await tenant.goto("vision-lab", "Vision Lab");
    await tenant.tab("Collaborators").click();
    await expect(page).toHaveURL("/tenants/vision-lab/collaborators");
    const collaborators = new CollaboratorsPage(page);
    await expectRows(collaborators.rows, [[`${carl.name}${carl.email}`, "Segmentation research", "member", until, PERSONAS.alex.name]]);
    await saveScreenshot(page, "collaborators-tab");

    // Three days on, the grant has ended. His session has not (ALLOT_SESSION_HOURS=720).
    shiftServerClock(3 * DAY_MS);
    await expectNotFound(carlPage, await carlPage.goto("/tenants/vision-lab/projects/segmentation-research"));
    await home.goto();
    await expect(home.heading).toHaveText("Welcome, Carl");
    await expect(home.noTenants).toBeVisible();
    await expect(home.tenantNames).toHaveCount(0);
    await saveScreenshot(carlPage, "home-collaborator-after-expiry");
    // The grant is still there, marked expired.
    await collaborators.goto("vision-lab", "Vision Lab");
    await expectRows(collaborators.rows, [[`${carl.name}${carl.email}`, "Segmentation research", "member", `${until} expired`, PERSONAS.alex.name]]);

    // Back to real time: the expiry is ahead again and his access returns. The
    // check is made at request time; no job removed the grant.
    resetServerClock();
    await carlProject.goto("vision-lab", "segmentation-research", "Segmentation research");
    await expect(carlProject.subtitle).toContainText("your role: Collaborator (member)");
    await home.goto();
    await expect(home.projectLinks("Vision Lab")).toHaveText(["Segmentation research"]);
    await carlContext.close();
  });
});
