/** One tab of the page: its root element and what it does when it is shown. */
export interface View {
  id: string;
  title: string;
  el: HTMLElement;
  /**
   * Called each time the view is shown (fetch what it needs, if due). `arg` is what follows the view in the address
   * (`#/alerts/42` -> `42`: the alerts view opens that alert, as a notification's click asks).
   */
  show(arg?: string): void;
}

/** A severity's rank, for sorting and for the map's marker size. */
export const SEVERITY_RANK: Record<string, number> = { low: 1, medium: 2, high: 3, critical: 4 };

/** Shows an error where the user acted (the API's problem `detail`, or the failure's message). */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
