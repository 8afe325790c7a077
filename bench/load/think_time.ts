// Locust's wait_time = between(a, b): a user waits a uniform time in [a, b] between requests.
export type ThinkTime = () => number;

export function between(minMs: number, maxMs: number, rand: () => number = Math.random): ThinkTime {
  if (!(minMs >= 0 && maxMs >= minMs)) throw new Error(`between(${minMs}, ${maxMs}): need 0 <= min <= max`);
  return () => minMs + rand() * (maxMs - minMs);
}

export const noThinkTime: ThinkTime = () => 0;
