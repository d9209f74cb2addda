// A balance over time, drawn by uPlot on a canvas: an image to assistive technology, named by what it shows (the
// numbers themselves are in a table beside it). The drawing is as exact as a screen is; the table has every digit.
import uPlot from 'uplot';
import { useEffect, useRef } from 'preact/hooks';

export interface ChartPoint {
  /** The instant, ISO 8601. */
  at: string;
  /** The amount's exact text. */
  amount: string;
}

const HEIGHT = 240;

/** The y axis as wide as its longest label (a balance may have 20 digits), at about 8 px a character. */
const labelWidth = (values: string[] | null): number => Math.max(40, ...(values ?? []).map((v) => v.length * 8 + 18));

export function BalanceChart({ points, label }: { points: ChartPoint[]; label: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const data: uPlot.AlignedData = [points.map((p) => Date.parse(p.at) / 1000), points.map((p) => Number(p.amount))];
    const plot = new uPlot(
      {
        width: Math.max(element.clientWidth, 200),
        height: HEIGHT,
        legend: { show: false },
        cursor: { show: false },
        scales: { x: { time: true } },
        // Times along the axis in UTC, as everywhere in the console.
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        axes: [{ stroke: '#333' }, { stroke: '#333', size: (_self, values) => labelWidth(values) }],
        series: [{}, { label: 'Balance', stroke: '#1d4ed8', width: 2, fill: 'rgba(29, 78, 216, 0.08)', points: { show: points.length < 60 } }],
      },
      data,
      element,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(element.clientWidth, 200), height: HEIGHT }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [points]);
  return <div class="chart" role="img" aria-label={label} ref={box} />;
}
