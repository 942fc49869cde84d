/** The hashed output names `buildDashboard` writes into `manifest.json`. */
export interface DashboardManifest {
  js: string;
  css: string;
}

/** Builds the dashboard page into `outdir` (default `dist/dashboard`). */
export function buildDashboard(outdir?: string): Promise<DashboardManifest>;
