// Gap-ledger periods as shaded bands behind the candles: a series primitive of the chart library
// (its public plugin interface), drawn in the background layer so candles and crosshair stay on
// top. Bands arrive in chart time (already shifted into the display zone) and snapped to slots.

const FILL = 'rgba(255, 183, 77, 0.16)';
const EDGE = 'rgba(255, 183, 77, 0.55)';

class BandsRenderer {
  constructor(source) {
    this.source = source;
  }

  draw() {}

  drawBackground(target) {
    const { chart, bands } = this.source;
    if (!chart || bands.length === 0) return;
    const timeScale = chart.timeScale();
    const half = timeScale.options().barSpacing / 2;
    target.useBitmapCoordinateSpace(({ context, bitmapSize, horizontalPixelRatio }) => {
      for (const band of bands) {
        const from = timeScale.timeToCoordinate(band.from);
        const to = timeScale.timeToCoordinate(band.to);
        if (from === null || to === null) continue;
        const left = Math.round((from - half) * horizontalPixelRatio);
        const width = Math.max(1, Math.round((to - from + 2 * half) * horizontalPixelRatio));
        context.fillStyle = FILL;
        context.fillRect(left, 0, width, bitmapSize.height);
        context.fillStyle = EDGE;
        context.fillRect(left, 0, Math.max(1, horizontalPixelRatio), bitmapSize.height);
        context.fillRect(
          left + width - Math.max(1, horizontalPixelRatio),
          0,
          Math.max(1, horizontalPixelRatio),
          bitmapSize.height,
        );
      }
    });
  }
}

class BandsView {
  constructor(source) {
    this.renderer_ = new BandsRenderer(source);
  }

  zOrder() {
    return 'bottom';
  }

  renderer() {
    return this.renderer_;
  }
}

export class GapBands {
  constructor() {
    this.chart = undefined;
    this.bands = [];
    this.requestUpdate = undefined;
    // The library caches by array identity: the same array while the set of views is unchanged.
    this.views = [new BandsView(this)];
  }

  attached({ chart, requestUpdate }) {
    this.chart = chart;
    this.requestUpdate = requestUpdate;
  }

  detached() {
    this.chart = undefined;
    this.requestUpdate = undefined;
  }

  updateAllViews() {}

  paneViews() {
    return this.views;
  }

  /** Bands as { from, to } in chart time (slot times present on the time scale). */
  setBands(bands) {
    this.bands = bands;
    this.requestUpdate?.();
  }
}
