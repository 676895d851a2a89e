// A daily chart, drawn as inline SVG bars: a charting library would cost more of the upload than the
// whole console (test/bundle), and bars over 7 to 90 days need none. Each day's numbers show on hover
// (an SVG title); the image's label says the total and the busiest day for a screen reader.

export interface Series {
  name: string;
  values: number[];
}

export function DailyChart({ title, days, series }: { title: string; days: string[]; series: Series[] }) {
  const values = days.map((_, index) => series.reduce((sum, one) => sum + one.values[index]!, 0));
  const max = Math.max(1, ...values);
  const total = values.reduce((sum, value) => sum + value, 0);
  const width = 300;
  const height = 80;
  const step = width / days.length;
  return (
    <figure class="chart">
      <figcaption>
        {title}: <strong>{total}</strong>
      </figcaption>
      <svg
        role="img"
        aria-label={`${title}, daily, ${days[0]} to ${days.at(-1)}: ${total} in all, at most ${Math.max(0, ...values)} a day`}
        viewBox={`0 0 ${width} ${height}`}
        preserveAspectRatio="none"
      >
        <line x1="0" y1={height - 0.5} x2={width} y2={height - 0.5} class="axis" />
        {days.map((day, index) => {
          const barHeight = (values[index]! / max) * (height - 4);
          return (
            <rect key={day} x={index * step + step * 0.1} y={height - barHeight} width={step * 0.8} height={barHeight}>
              <title>{`${day}: ${values[index]}`}</title>
            </rect>
          );
        })}
      </svg>
    </figure>
  );
}
