import fs from "node:fs/promises";
import { expect, test } from "@playwright/test";
import { ProjectPage } from "./pages/project-page";
import { PERSONAS, storageStateOf } from "./support/personas";

// The access list of a project leaves the portal as a CSV with the same columns as the page.

test.describe("Alex, tenant admin of Vision Lab", () => {
  test.use({ storageState: storageStateOf("alex") });

  test("exports who has access to Detector training as CSV", async ({ page }) => {
    const project = new ProjectPage(page);
    await project.goto("vision-lab", "detector-training", "Detector training");
    const download = await project.exportCsv();
    expect(download.suggestedFilename()).toBe("vision-lab--detector-training-access.csv");
    const lines = (await fs.readFile(await download.path(), "utf8")).trim().split(/\r?\n/);
    expect(lines[0]).toBe("Name,Email,Kind,Role,Through,Expires,Granted by");
    expect(lines).toContain(`${PERSONAS.dana.name},${PERSONAS.dana.email},user,member,project grant,,${PERSONAS.alex.name}`);
    expect(lines).toContain(`${PERSONAS.alex.name},${PERSONAS.alex.email},user,tenant admin,tenant membership,,`);
  });
});
