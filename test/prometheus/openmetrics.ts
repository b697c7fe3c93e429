/**
 * Synthetic series written as OpenMetrics text, the input of
 * `promtool tsdb create-blocks-from openmetrics`: one block per family,
 * timestamps in seconds, a counter's family named without its `_total`, and
 * the file closed by `# EOF`.
 */

export interface Series {
  labels: Record<string, string>;
  /** [time in ms, value], in time order. */
  samples: [number, number][];
}

export interface Family {
  /** The sample name; a counter's ends in `_total`. */
  name: string;
  type: "gauge" | "counter";
  series: Series[];
}

const MINUTE_MS = 60_000;

const escapeLabel = (value: string) => value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");

export function openMetricsText(families: readonly Family[]): string {
  const lines: string[] = [];
  for (const family of families) {
    if (family.type === "counter" && !family.name.endsWith("_total")) throw new Error(`counter ${family.name} must end in _total`);
    lines.push(`# TYPE ${family.type === "counter" ? family.name.slice(0, -"_total".length) : family.name} ${family.type}`);
    for (const series of family.series) {
      const labels = Object.entries(series.labels)
        .map(([k, v]) => `${k}="${escapeLabel(v)}"`)
        .join(",");
      for (const [at, value] of series.samples) lines.push(`${family.name}{${labels}} ${value} ${at / 1000}`);
    }
  }
  lines.push("# EOF");
  return `${lines.join("\n")}\n`;
}

/**
 * A scrape a minute over [from, to): at from + 30 s, from + 90 s, … (mid-minute,
 * as real scrapes fall), each with value(t).
 */
export function scrapedEveryMinute(from: Date, to: Date, value: (atMs: number) => number): [number, number][] {
  const samples: [number, number][] = [];
  for (let at = from.getTime() + MINUTE_MS / 2; at < to.getTime(); at += MINUTE_MS) samples.push([at, value(at)]);
  return samples;
}
