// SVG charts for RESULTS.md, drawn by Vega-Lite (compiled to a Vega spec, rendered headless
// with vega's SVG renderer: no browser, no canvas). GitHub shows the SVG files inline.
import * as vega from 'vega';
import * as vl from 'vega-lite';

interface Point {
  series: string;
  x: number;
  y: number;
}

export interface LineChart {
  title: string;
  xTitle: string;
  yTitle: string;
  points: Point[];
  logX?: boolean;
  logY?: boolean;
}

interface Bar {
  group: string;
  series: string;
  value: number;
}

export interface BarChart {
  title: string;
  yTitle: string;
  bars: Bar[];
  logY?: boolean;
}

async function render(spec: vl.TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(vl.compile(spec).spec), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  return svg;
}

const base = { $schema: 'https://vega.github.io/schema/vega-lite/v6.json', width: 560, height: 320, background: 'white' } as const;

export function lineChartSvg(c: LineChart): Promise<string> {
  return render({
    ...base,
    title: c.title,
    data: { values: c.points },
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: 'x', type: 'quantitative', title: c.xTitle, scale: c.logX ? { type: 'log', base: 2 } : {} },
      y: { field: 'y', type: 'quantitative', title: c.yTitle, scale: c.logY ? { type: 'log' } : {} },
      color: { field: 'series', type: 'nominal', title: null, sort: null, legend: { labelLimit: 400 } },
    },
  });
}

export function barChartSvg(c: BarChart): Promise<string> {
  return render({
    ...base,
    title: c.title,
    data: { values: c.bars },
    mark: 'bar',
    encoding: {
      x: { field: 'group', type: 'nominal', title: null, sort: null, axis: { labelAngle: -25 } },
      xOffset: { field: 'series', type: 'nominal', sort: null },
      // symlog, not log: a bar starts at 0, which a log scale cannot place.
      y: { field: 'value', type: 'quantitative', title: c.yTitle, scale: c.logY ? { type: 'symlog' } : {} },
      color: { field: 'series', type: 'nominal', title: null, sort: null, legend: { labelLimit: 400 } },
    },
  });
}
