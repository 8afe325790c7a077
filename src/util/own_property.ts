// Lookups of names a client chooses (signatures, inputs, outputs, labels, feature keys):
// only an object's own members count, so "constructor", "__proto__" or "toString" are
// names like any other — not found — instead of Object.prototype's functions.

/** record[key] if it is record's own member, else undefined. */
export function ownValue<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** Whether key is record's own member (what `key in record` would mean without the prototype). */
export function hasOwnKey(record: object, key: string): boolean {
  return Object.hasOwn(record, key);
}

/** record[key] = value as an own, enumerable member, even for "__proto__" (which `=` would take as the prototype). */
export function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__') Object.defineProperty(record, key, { value, writable: true, enumerable: true, configurable: true });
  else record[key] = value;
}
