// One target a bench checks: what it measured against the goal it has. Its own module so that
// a bench writing targets (latency) and the report's results both import it without importing
// each other.
export interface Target {
  name: string;
  measured: string;
  goal: string;
  met: boolean;
}
