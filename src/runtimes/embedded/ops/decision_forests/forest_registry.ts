// The decision forests loaded in this thread, by the key their op nodes carry (attr model_key):
// a version's load adds its models, its dispose removes and deletes them. Keys are unique per
// load, so two loads of one folder in a thread (a version and its --verify_on_load reference)
// never share an engine's example buffer.
import type { YggdrasilForest } from './yggdrasil_forest.js';

const forests = new Map<string, YggdrasilForest>();
let loaded = 0;

export function addForest(forest: YggdrasilForest): string {
  const key = `forest-${++loaded}`;
  forests.set(key, forest);
  return key;
}

export function forestOf(key: string): YggdrasilForest | undefined {
  return forests.get(key);
}

export function releaseForest(key: string): void {
  forests.get(key)?.dispose();
  forests.delete(key);
}
