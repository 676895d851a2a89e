// The Prometheus text exposition format, version 0.0.4, of the deployment's totals: every family
// with its HELP and TYPE (a counter without labels shows 0 before its first count), histograms with
// cumulative buckets up to +Inf, _sum and _count.
import type { MetricsBatch } from "../object-interfaces";
import { LATENCY_BUCKETS, METRICS, parseSeriesKey } from "./series";

export const EXPOSITION_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

const escapeHelp = (text: string) => text.replaceAll("\\", "\\\\").replaceAll("\n", "\\n");
const escapeLabel = (text: string) => text.replaceAll("\\", "\\\\").replaceAll("\n", "\\n").replaceAll('"', '\\"');
const formatLabels = (labels: Record<string, string>) => {
  const pairs = Object.entries(labels).map(([name, value]) => `${name}="${escapeLabel(value)}"`);
  return pairs.length === 0 ? "" : `{${pairs.join(",")}}`;
};
const formatValue = (value: number) => (Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(12))));

export function exposition(totals: MetricsBatch): string {
  const byName = new Map<string, Array<[Record<string, string>, number]>>();
  for (const [key, value] of totals) {
    const parsed = parseSeriesKey(key);
    if (!parsed) continue;
    const [name, labels] = parsed;
    byName.set(name, [...(byName.get(name) ?? []), [labels, value]]);
  }
  const lines: string[] = [];
  for (const [name, family] of Object.entries(METRICS)) {
    lines.push(`# HELP ${name} ${escapeHelp(family.help)}`, `# TYPE ${name} ${family.type}`);
    if (family.type === "histogram") {
      lines.push(...histogram(name, byName));
      continue;
    }
    const samples = byName.get(name) ?? [];
    if (samples.length === 0 && family.labels.length === 0) lines.push(`${name} 0`);
    for (const [labels, value] of samples) lines.push(`${name}${formatLabels(labels)} ${formatValue(value)}`);
  }
  return lines.join("\n") + "\n";
}

function histogram(name: string, byName: Map<string, Array<[Record<string, string>, number]>>): string[] {
  const routes = new Set((byName.get(`${name}_count`) ?? []).map(([labels]) => labels.route ?? ""));
  const lines: string[] = [];
  for (const route of [...routes].sort()) {
    const perBucket = new Map<string, number>();
    for (const [labels, value] of byName.get(`${name}_bucket`) ?? []) if (labels.route === route) perBucket.set(labels.le ?? "", value);
    let cumulative = 0;
    for (const bound of [...LATENCY_BUCKETS.map(String), "+Inf"]) {
      cumulative += perBucket.get(bound) ?? 0;
      lines.push(`${name}_bucket${formatLabels({ route, le: bound })} ${formatValue(cumulative)}`);
    }
    const find = (suffix: string) => (byName.get(`${name}_${suffix}`) ?? []).find(([labels]) => labels.route === route)?.[1] ?? 0;
    lines.push(`${name}_sum${formatLabels({ route })} ${formatValue(find("sum"))}`, `${name}_count${formatLabels({ route })} ${formatValue(find("count"))}`);
  }
  return lines;
}
