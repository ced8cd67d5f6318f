// Time-series charts with uPlot: canvas drawing, fast on thousands of points, small. Colours come from
// the theme's CSS variables, so a chart follows light and dark.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { useEffect, useRef } from 'preact/hooks';

export interface Series {
  label: string;
  /** A CSS variable name of the theme, e.g. --chart-1. */
  color: string;
  values: number[];
  show?: boolean;
}

const css = (name: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888';

export function TimeChart(props: { label: string; times: number[]; series: Series[]; height?: number }) {
  const host = useRef<HTMLDivElement>(null);
  const height = props.height ?? 240;
  useEffect(() => {
    const element = host.current;
    if (!element) return;
    const axis = { stroke: css('--muted'), grid: { stroke: css('--line'), width: 1 }, ticks: { stroke: css('--line') } };
    const options: uPlot.Options = {
      width: element.clientWidth || 600,
      height,
      legend: { live: true },
      cursor: { focus: { prox: 24 } },
      scales: { x: { time: true } },
      axes: [axis, { ...axis, size: 56 }],
      series: [
        { label: 'time (UTC)', value: (_u, v) => (v == null ? '–' : new Date(v * 1000).toISOString().slice(0, 16).replace('T', ' ')) },
        ...props.series.map((s) => ({ label: s.label, stroke: css(s.color), width: 1.5, show: s.show ?? true, points: { show: false } })),
      ],
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
    };
    const chart = new uPlot(options, [props.times, ...props.series.map((s) => s.values)], element);
    const resize = new ResizeObserver(() => chart.setSize({ width: element.clientWidth, height }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [props.times, props.series, height]);
  // The box keeps its height before the chart draws, so nothing below it moves.
  return <div class="chart" ref={host} role="img" aria-label={props.label} style={{ minHeight: `${height + 40}px` }} />;
}
