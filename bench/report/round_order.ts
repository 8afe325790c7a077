// The order in which interleaved rounds visit the set-ups: forward, then backward (A B C,
// C B A, A B C, …). Over each pair of rounds every set-up's mean position is the same, so a
// machine that grows steadily slower or faster during a run favours none of them, and no
// set-up always follows the same neighbour. A fixed order gave the last set-up the latest
// (and the first the earliest) machine state in every round.
export function roundOrder<T>(items: readonly T[], round: number): T[] {
  return round % 2 === 0 ? [...items] : [...items].reverse();
}
