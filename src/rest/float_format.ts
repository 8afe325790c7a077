// Numbers as TF Serving's json_tensor.cc writes them: a float is printed like C's "%g"
// (6 significant digits) when that reads back as the same value, else with max_digits10
// (9 for float32, 17 for float64); whole numbers get ".0"; NaN / Infinity / -Infinity bare.
// So 0.1f prints 0.1 (not 0.10000000149011612) and 3.0f prints 3.0.

/** C printf "%.{p}g" for a finite number. */
export function formatG(value: number, precision: number): string {
  if (value === 0) return Object.is(value, -0) ? '-0' : '0';
  const exp = Math.floor(Math.log10(Math.abs(value)));
  let [mantissa, e] = value.toExponential(precision - 1).split('e');
  let exponent = Number(e);
  // toExponential may round up into the next decade (9.999995 → 1.00000e+1).
  if (exponent !== exp && Math.abs(exponent - exp) > 1) exponent = exp;
  if (exponent < -4 || exponent >= precision) {
    if (mantissa.includes('.')) mantissa = mantissa.replace(/\.?0+$/, '');
    const sign = exponent < 0 ? '-' : '+';
    const digits = String(Math.abs(exponent)).padStart(2, '0');
    return `${mantissa}e${sign}${digits}`;
  }
  const fixed = value.toFixed(Math.max(0, precision - 1 - exponent));
  return fixed.includes('.') ? fixed.replace(/\.?0+$/, '') : fixed;
}

function formatDecimal(value: number, roundTrips: (s: string) => boolean, maxDigits: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value < 0 ? '-Infinity' : 'Infinity';
  let s = formatG(value, 6);
  if (!roundTrips(s)) s = formatG(value, maxDigits);
  if (!s.includes('.') && !s.includes('e')) s += '.0';
  return s;
}

export function formatFloat32(value: number): string {
  return formatDecimal(value, (s) => Math.fround(Number(s)) === value, 9);
}

export function formatFloat64(value: number): string {
  return formatDecimal(value, (s) => Number(s) === value, 17);
}
