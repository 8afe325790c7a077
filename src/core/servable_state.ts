// The life of one model version in the manager, as TF Serving's ServableState::ManagerState
// names it (what GetModelStatus reports), written as data so that the manager cannot take a
// step the table does not allow. A failed load ends in END with its error; an unloaded
// version aspired again starts over as a new entry, never by leaving END.
export type ManagerState = 'START' | 'LOADING' | 'AVAILABLE' | 'UNLOADING' | 'END';

/** From each state, the states a version may move to next. */
export const ALLOWED_TRANSITIONS: Readonly<Record<ManagerState, readonly ManagerState[]>> = Object.freeze({
  START: ['LOADING'],
  // AVAILABLE once loaded; END when the load failed for good or the version stopped being
  // aspired while it loaded (it is never served then).
  LOADING: ['AVAILABLE', 'END'],
  AVAILABLE: ['UNLOADING'],
  UNLOADING: ['END'],
  END: [],
});

/** Thrown on a step outside the table: a manager bug, never a request's fault. */
export class IllegalTransition extends Error {
  constructor(
    readonly from: ManagerState,
    readonly to: ManagerState,
  ) {
    super(`a version cannot go from ${from} to ${to} (allowed: ${ALLOWED_TRANSITIONS[from].join(', ') || 'none'})`);
  }
}

/** `to`, when the table allows the step from `from`; IllegalTransition otherwise. */
export function nextState(from: ManagerState, to: ManagerState): ManagerState {
  if (!ALLOWED_TRANSITIONS[from].includes(to)) throw new IllegalTransition(from, to);
  return to;
}
