// The globals that the pages under test set on `window` and that the tests, e2e tests and
// benchmarks read back through Playwright's page.evaluate: one place for their types, checked
// by tsconfig.tests.json.
import type { Map as MapLibreMap } from 'maplibre-gl';
import type { ZarrLayer, ZarrLayerOptions } from '@carbonplan/zarr-layer';
import type { openStore } from '../src/index.js';
import type { FrameRecord } from '../lib/scene.js';
import type { ViewerApi } from '../viewer/hook.js';
import type { MountedViewer } from '../viewer/mount.js';
import type { ChronozarrLayer } from '../maplibre/layer.js';
import type { LayerOptions } from '../maplibre/options.js';
import type { createHook } from '../bench/pages/page-hook.js';

type Store = Awaited<ReturnType<typeof openStore>>;

/** The viewer page's instrumentation (viewer/hook.js, `window.__chronozarrViewer`). */
interface ViewerHook {
  ready: boolean;
  error: string | null;
  frames: FrameRecord[];
  api: ViewerApi;
  playback?: string;
  openStartAt?: number;
  openedAt?: number;
  firstFrameAt?: number;
  firstCompleteAt?: number;
  firstCompleteReads?: { requests: number; bytes: number };
  permalink?: string;
  lastClick?: Record<string, any>;
  historyWarm?: import('../viewer/history-warm.js').WarmReport;
}

/** A decode worker a page started (e2e/maplibre.test.mjs wraps `Worker` to log them). */
interface WorkerEntry {
  url: string;
  terminated: boolean;
}

type Rgba = number[];
type Box = [number, number, number, number];

declare global {
  interface Window {
    /** viewer/app.js on the standalone viewer page. */
    __chronozarrViewer: ViewerHook;
    /** maplibre/demo.js. */
    __chronozarrMap: { map: MapLibreMap; layer: ChronozarrLayer };
    /** bench/pages/page-hook.js on the comparison pages. */
    __bench: ReturnType<typeof createHook> & { setT(t: number): unknown; history(a: number, b: number): Promise<number> };
    /** bench/pages/region-page.js and region-zarr-layer-page.js: an area's whole series. */
    __region: { ready: boolean; error: string | null; series?: (area: any, lod?: number) => Promise<unknown> };
    /** Pages that load a module set it once the module has run. */
    ready: boolean;

    /** e2e/reader.test.mjs's page: the reader's module. */
    chronozarr: typeof import('../src/index.js');

    /** e2e/maplibre-host.html. */
    makeMap(o: { center: [number, number]; zoom: number; background: string }): Promise<void>;
    addLayer(options: LayerOptions): Promise<void>;
    pixelsAt(points: [number, number][]): Rgba[];
    nextRender(): Promise<void>;
    hostReady: boolean;
    /** The map of e2e/maplibre-host.html and e2e/zarr-layer-host.html. */
    map: MapLibreMap;
    layer: ChronozarrLayer;
    workerLog: WorkerEntry[];

    /** e2e/zarr-layer-host.html. */
    show(bbox: [[number, number], [number, number]], options: ZarrLayerOptions): Promise<void>;
    zarrLayer: ZarrLayer;
    settled(background: Rgba, ms?: number): Promise<void>;
    colours(points: [number, number][], dy?: number): Rgba[];
    drawnBox(background: Rgba): Box | null;
    footprintBox(corners: [number, number][]): Box;

    /** e2e/host.html: the messages the viewer's frame sent, and a way to send it one. */
    messages: { origin: string; data: any }[];
    send(msg: any): void;

    /** e2e/widget-host.html: what the notebook widget sent to Python, and a custom message from Python. */
    sent: any[];
    emit(msg: any): void;

    /** The page of e2e/viewer-package.test.mjs. */
    viewer: MountedViewer & { api: ViewerApi };
    events: ({ type: string } & Record<string, any>)[];
    mounted: true | string;

    /** bench/page.html. */
    bench(storeUrl: string, workers: number, reps: number, zarritaUrl?: string): Promise<any>;
    fetchFrame(storeUrl: string, t: number, gridRows: number, gridCols: number): Promise<number>;
    /** bench/pages/blank.html: the fetch-only floor. */
    replay(requests: { url: string; range?: string }[]): Promise<number>;

    /** axe-core, injected by e2e/viewer-a11y.test.mjs. */
    axe: typeof import('axe-core');
  }
}

export {};
