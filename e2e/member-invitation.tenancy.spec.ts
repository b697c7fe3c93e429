import { expect, test } from "@playwright/test";
import { HomePage } from "./pages/home-page";
import { InvitationPage } from "./pages/invitation-page";
import { TenantPage } from "./pages/tenant-page";
import { expectRows, saveScreenshot } from "./support/checks";
import { IDP_ACCOUNTS, runOidcProviderForThisFile } from "./support/oidc-provider";
import { PERSONAS, SIGNED_OUT, storageStateOf } from "./support/personas";

// A tenant admin invites someone who has never signed in; they sign in through
// single sign-on from the link and join the tenant with the role it names.

runOidcProviderForThisFile();

test.describe("Alex, tenant admin of Vision Lab", () => {
  test.use({ storageState: storageStateOf("alex") });

  test("invites a viewer by email; she signs in from the link, joins, and the link is spent", async ({ page, browser }) => {
    const ines = IDP_ACCOUNTS["invitee-1"];
    const tenant = new TenantPage(page);
    await tenant.goto("vision-lab", "Vision Lab");
    const visionLabProjects = await tenant.projectRows.getByRole("link").allTextContents();
    expect(visionLabProjects).toEqual(expect.arrayContaining(["Detector training", "Segmentation research"]));

    const dialog = await tenant.openInviteMember();
    await dialog.field("Email").fill("ines-at-idp.example");
    await dialog.field("Role").selectOption("viewer");
    await dialog.submit("Create invitation");
    await expect(dialog.fieldError("Email")).toHaveText("Enter an email address, such as ada@example.com.");
    await expect(dialog.field("Email")).toHaveAttribute("aria-invalid", "true");
    await expect(dialog.reveal).toHaveCount(0);

    await dialog.field("Email").fill(ines.email);
    await expect(dialog.field("Role")).toHaveValue("viewer");
    await dialog.submit("Create invitation");
    const link = await dialog.revealed("Invitation link (single use)");
    expect(link).toMatch(/^http:\/\/localhost:\d+\/invite\/[A-Za-z0-9_-]{43}$/);
    await expect(dialog.reveal).toContainText(`Pass it to ${ines.email}; it works once`);
    await saveScreenshot(page, "invite-member-dialog-with-link");
    await dialog.done();
    await expectRows(tenant.openInvitationRows, [[ines.email, "Viewer", /\d{4}$/, PERSONAS.alex.name]]);

    // Ines, in a browser of her own that has never seen the portal.
    const inesContext = await browser.newContext({ storageState: SIGNED_OUT });
    const inesPage = await inesContext.newPage();
    const invitation = new InvitationPage(inesPage);
    await invitation.openSignedOutAndSignIn(link, "invitee-1");
    await expect(invitation.offer).toHaveText("You are invited to join Vision Lab as viewer.");
    await saveScreenshot(inesPage, "invitation-page-member");
    await invitation.acceptButton.click();

    await expect(inesPage).toHaveURL("/tenants/vision-lab");
    const inesTenant = new TenantPage(inesPage);
    await expect(inesTenant.heading).toHaveText("Vision Lab");
    await expect(inesPage.getByRole("main")).toContainText("Your role: Viewer");
    // A viewer reads every project of the tenant, and manages nothing.
    await expect(inesTenant.projectRows.getByRole("link")).toHaveText(visionLabProjects);
    await expect(inesTenant.inviteMemberButton).toHaveCount(0);

    const home = new HomePage(inesPage);
    await home.goto();
    await expect(home.heading).toHaveText("Welcome, Ines");
    await expect(home.tenantNames).toHaveText(["Vision Lab"]);
    await expect(home.tenantBadge("Vision Lab", "Viewer")).toBeVisible();
    await expect(home.projectLinks("Vision Lab")).toHaveText(visionLabProjects);
    for (const project of visionLabProjects) await expect(home.projectItem("Vision Lab", project)).toContainText("Viewer");

    // Alex sees her among the members, and the invitation is no longer open.
    await tenant.goto("vision-lab", "Vision Lab");
    await expectRows(tenant.memberRows, [
      [PERSONAS.alex.name, PERSONAS.alex.email, "Tenant admin"],
      [PERSONAS.dana.name, PERSONAS.dana.email, "Member"],
      [ines.name, ines.email, "Viewer"],
    ]);
    await expect(tenant.openInvitationRows).toHaveCount(0);

    // The link worked once.
    await inesPage.goto(link);
    await expect(invitation.heading).toHaveText("Invitation");
    await expect(invitation.problem).toHaveText("This invitation has already been used.");
    await expect(invitation.acceptButton).toHaveCount(0);
    await inesContext.close();
  });
});
