// A daily chart, drawn as inline SVG bars: a charting library would cost more of the upload than the
// whole console (test/bundle), and bars over 7 to 90 days need none. Several series stack, each in a
// tone of its own with a legend; a limit (a budget) is a line across. A scale beside the bars (the top
// and zero) and the dates under them (first, middle, last) say what the bars measure; a page whose
// charts would all be empty says so once instead (`drawn`). Each day's numbers show on hover (an SVG
// title); the image's label says the total and the busiest day, and the numbers themselves sit in a
// table under "The numbers" for whoever cannot see the bars.

export interface Series {
  name: string;
  values: number[];
  /** Its colour: the accent (default), a failure, or neither good nor bad. */
  tone?: "accent" | "danger" | "muted";
}

interface ChartProps {
  title: string;
  days: string[];
  series: Series[];
  /** How a number reads (dollars for spend); plain digits by default. */
  format?: (value: number) => string;
  /** A line across the bars, such as the month's budget, each day's own (null: none that day). */
  limit?: { name: string; values: Array<number | null> };
  /** The caption's figure: the sum of the days by default; the last day's for a running total. */
  headline?: "sum" | "last";
}

export function DailyChart({ title, days, series, format = String, limit, headline = "sum" }: ChartProps) {
  const values = days.map((_, index) => series.reduce((sum, one) => sum + one.values[index]!, 0));
  const limits = limit?.values ?? [];
  const max = Math.max(1, ...values, ...limits.map((value) => value ?? 0));
  const total = values.reduce((sum, value) => sum + value, 0);
  const shown = headline === "sum" ? total : (values.at(-1) ?? 0);
  const width = 300;
  const height = 80;
  const step = width / days.length;
  const y = (value: number) => height - (value / max) * (height - 4);
  const onDay = (index: number) =>
    [
      days[index],
      ...(series.length > 1 ? series.map((one) => `${one.name} ${format(one.values[index]!)}`) : [format(values[index]!)]),
      ...(limit && limits[index] != null ? [`${limit.name} ${format(limits[index]!)}`] : []),
    ].join(series.length > 1 || limit ? ", " : ": ");
  const middle = days[Math.floor((days.length - 1) / 2)]!;
  return (
    <figure class="chart">
      <figcaption>
        {title}: <strong>{format(shown)}</strong>
      </figcaption>
      <div class="plot">
        {/* The scale: the height of the tallest bar, and zero (the image's label says the same in words). */}
        <div class="scale" aria-hidden="true">
          <span>{format(max)}</span>
          <span>{format(0)}</span>
        </div>
        <svg
          role="img"
          aria-label={`${title}, daily, ${days[0]} to ${days.at(-1)}: ${headline === "sum" ? `${format(total)} in all` : `${format(shown)} on the last day`}, at most ${format(Math.max(0, ...values))} a day`}
          viewBox={`0 0 ${width} ${height}`}
          preserveAspectRatio="none"
        >
          <line x1="0" y1={height - 0.5} x2={width} y2={height - 0.5} class="axis" />
          {days.map((day, index) => {
            let base = height;
            return (
              <g key={day}>
                <title>{onDay(index)}</title>
                {/* The whole day's height, so hovering an empty day still shows its numbers. */}
                <rect class="hover" x={index * step} y="0" width={step} height={height} />
                {series.map((one) => {
                  const top = base - (one.values[index]! / max) * (height - 4);
                  const bar = <rect key={one.name} class={one.tone ?? "accent"} x={index * step + step * 0.1} y={top} width={step * 0.8} height={base - top} />;
                  base = top;
                  return bar;
                })}
              </g>
            );
          })}
          {limit &&
            limits.map((value, index) =>
              value == null ? null : <line key={days[index]} class="limit" x1={index * step} x2={(index + 1) * step} y1={y(value)} y2={y(value)} />,
            )}
        </svg>
        <div class="dates" aria-hidden="true">
          <span>{dayText(days[0]!)}</span>
          <span>{dayText(middle)}</span>
          <span>{dayText(days.at(-1)!)}</span>
        </div>
      </div>
      {(series.length > 1 || limit) && (
        <ul class="legend">
          {series.map((one) => (
            <li key={one.name}>
              <span class={`swatch ${one.tone ?? "accent"}`} aria-hidden="true" /> {one.name}
            </li>
          ))}
          {limit && (
            <li>
              <span class="swatch limit" aria-hidden="true" /> {limit.name}
            </li>
          )}
        </ul>
      )}
    </figure>
  );
}

/** Whether charts have anything to draw: a day with a value, or a limit. */
export const drawn = (series: readonly Series[], limit?: ChartProps["limit"]) =>
  series.some((one) => one.values.some((value) => value !== 0)) || (limit?.values.some((value) => value !== null) ?? false);

/** `Nov 9`: a UTC day (YYYY-MM-DD) as the axis says it. */
const dayText = (day: string) => new Date(`${day}T00:00:00Z`).toLocaleDateString(undefined, { month: "short", day: "numeric", timeZone: "UTC" });

/** The numbers behind a set of charts, one row a day with anything in it: the charts' text alternative. */
export function ChartNumbers({
  days,
  columns,
}: {
  days: string[];
  /** Each day's value (null: none, as a month without a budget), shown with `format` (digits by default). */
  columns: Array<{ name: string; values: Array<number | null>; format?: (value: number) => string }>;
}) {
  // A day with nothing in it (every value zero or none) is left out: the table lists the days that say something.
  const rows = days
    .map((day, index) => ({ day, values: columns.map((column) => column.values[index] ?? null) }))
    .filter((row) => row.values.some((value) => value !== null && value !== 0));
  return (
    <details class="numbers">
      <summary>The numbers</summary>
      {rows.length === 0 ? (
        <p class="muted">Nothing on any of these days.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Day (UTC)</th>
                {columns.map((column) => (
                  <th key={column.name} scope="col">
                    {column.name}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.day}>
                  <th scope="row">{row.day}</th>
                  {row.values.map((value, index) => (
                    <td key={columns[index]!.name}>{value === null ? "none" : (columns[index]!.format ?? String)(value)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </details>
  );
}
