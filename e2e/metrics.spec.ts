import { expect, test } from "@playwright/test";
import { BASE_URL, METRICS_PORT } from "./support/env";
import { SIGNED_OUT } from "./support/personas";

test.use({ storageState: SIGNED_OUT });

/**
 * The production server's /metrics: on its own port, never on the portal's, with request
 * durations labelled by the route pattern Next matched rather than the path asked for.
 */
test("requests are timed by route pattern and status on the metrics port, which the portal's port does not serve", async ({ request }) => {
  expect((await request.get("/api/v1/quota-requests/4711")).status()).toBe(401);
  expect((await request.get("/readyz")).status()).toBe(200);

  const scrape = await request.get(`http://127.0.0.1:${METRICS_PORT}/metrics`);
  expect(scrape.status()).toBe(200);
  const text = await scrape.text();
  expect(text).toMatch(/^allot_http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/quota-requests\/\[id\]",status="401"\} [1-9]/m);
  expect(text).toMatch(/^allot_http_request_duration_seconds_count\{method="GET",route="\/readyz",status="200"\} [1-9]/m);
  expect(text).not.toContain("4711");
  expect(text).toMatch(/^allot_outbox_changes\{status="pending"\} \d+$/m);
  expect(text).toMatch(/^allot_leader\{loop="periodic"\} 1$/m);

  const onPortal = await request.get(`${BASE_URL}/metrics`, { maxRedirects: 0 });
  expect(await onPortal.text()).not.toContain("allot_http_request_duration_seconds");
});
