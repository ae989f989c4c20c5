export interface ChartRow {
  name: string;
  requestsPerSecond: number;
  p99: number;
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A horizontal bar chart of requests/s per scenario, p99 written beside each bar. */
export function renderChart(title: string, rows: readonly ChartRow[]): string {
  const rowHeight = 28;
  const labelWidth = 330;
  const barWidth = 420;
  const top = 40;
  const height = top + rows.length * rowHeight + 20;
  const max = Math.max(...rows.map((r) => r.requestsPerSecond), 1);
  const bars = rows
    .map((r, i) => {
      const y = top + i * rowHeight;
      const width = Math.max(1, Math.round((r.requestsPerSecond / max) * barWidth));
      return [
        `<text x="${labelWidth - 8}" y="${y + 17}" text-anchor="end">${escape(r.name)}</text>`,
        `<rect x="${labelWidth}" y="${y + 4}" width="${width}" height="${rowHeight - 8}" fill="${i === 0 ? '#9aa5b1' : '#3b82f6'}"/>`,
        `<text x="${labelWidth + width + 6}" y="${y + 17}">${r.requestsPerSecond} req/s · p99 ${r.p99} ms</text>`,
      ].join('');
    })
    .join('\n');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${labelWidth + barWidth + 200}" height="${height}" font-family="sans-serif" font-size="13">
<rect width="100%" height="100%" fill="white"/>
<text x="10" y="24" font-size="16" font-weight="bold">${escape(title)}</text>
${bars}
</svg>
`;
}
