// C printf's %d, %f, %e and %g conversions of a double, as glibc prints them: the exact
// binary value rounded to the requested decimal digits half-to-even (printf("%.2f", 0.125)
// is "0.12", where JavaScript's toFixed gives "0.13"), any magnitude in full (%f of 1e300
// prints all 301 digits), "inf" / "nan" with the sign bit's '-', and the flags
// '-' (left-justify), '+', ' ', '0' (zero-pad finite numbers) and '#' (keep the point and,
// for %g, trailing zeros).

export interface PrintfSpec {
  conversion: 'd' | 'f' | 'e' | 'g';
  flags: string;
  /** -1: none. */
  width: number;
  /** -1: the default (6 for f, e, g). */
  precision: number;
}

/** value × 10^shift as an exact fraction num / den (shift may be negative). */
function scaledFraction(mantissa: bigint, exp2: number, shift: number): [bigint, bigint] {
  let num = mantissa;
  let den = 1n;
  if (exp2 >= 0) num <<= BigInt(exp2);
  else den <<= BigInt(-exp2);
  if (shift >= 0) num *= 10n ** BigInt(shift);
  else den *= 10n ** BigInt(-shift);
  return [num, den];
}

/** num / den rounded to the nearest integer, ties to even. */
function roundHalfEven(num: bigint, den: bigint): bigint {
  const q = num / den;
  const r2 = (num % den) * 2n;
  return r2 > den || (r2 === den && q % 2n === 1n) ? q + 1n : q;
}

/** |x| = mantissa × 2^exp2 exactly (x finite, non-zero). */
function decompose(x: number): [bigint, number] {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const biased = hi >>> 20;
  const frac = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  return biased === 0 ? [frac, -1074] : [frac | (1n << 52n), biased - 1075];
}

/** Digits of |x| rounded to `precision` places: %f's digits, point not inserted. */
function fixedDigits(x: number, precision: number): string {
  if (x === 0) return '0'.repeat(precision + 1);
  const [m, e] = decompose(x);
  return roundHalfEven(...scaledFraction(m, e, precision))
    .toString()
    .padStart(precision + 1, '0');
}

/** %e's significand digits (precision + 1 of them) and decimal exponent for |x|. */
function scientificDigits(x: number, precision: number): [string, number] {
  if (x === 0) return ['0'.repeat(precision + 1), 0];
  const [m, e] = decompose(x);
  let exp10 = Math.floor(Math.log10(Math.abs(x)));
  // log10 can be off by one near powers of ten: settle 10^exp10 <= |x| < 10^(exp10+1) exactly.
  const atLeast = (k: number) => {
    const [n, d] = scaledFraction(m, e, -k);
    return n >= d;
  };
  while (!atLeast(exp10)) exp10--;
  while (atLeast(exp10 + 1)) exp10++;
  let q = roundHalfEven(...scaledFraction(m, e, precision - exp10));
  if (q === 10n ** BigInt(precision + 1)) {
    q /= 10n;
    exp10++;
  }
  return [q.toString(), exp10];
}

const withPoint = (digits: string, intDigits: number, alt: boolean) => {
  const frac = digits.slice(intDigits);
  return digits.slice(0, intDigits) + (frac || alt ? '.' : '') + frac;
};

const exponentText = (e: number) => `e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;

function formatFixed(x: number, precision: number, alt: boolean): string {
  const digits = fixedDigits(x, precision);
  return withPoint(digits, digits.length - precision, alt);
}

function formatScientific(x: number, precision: number, alt: boolean): string {
  const [digits, e] = scientificDigits(x, precision);
  return withPoint(digits, 1, alt) + exponentText(e);
}

function formatShortest(x: number, precision: number, alt: boolean): string {
  const p = precision === 0 ? 1 : precision;
  const [, e] = scientificDigits(x, p - 1);
  let text = p > e && e >= -4 ? formatFixed(x, p - 1 - e, alt) : formatScientific(x, p - 1, alt);
  if (!alt) {
    // %g drops trailing zeros of the fraction, and the point if nothing follows it.
    const at = text.indexOf('e');
    const [mant, exp] = at < 0 ? [text, ''] : [text.slice(0, at), text.slice(at)];
    text = (mant.includes('.') ? mant.replace(/0+$/, '').replace(/\.$/, '') : mant) + exp;
  }
  return text;
}

function signBitSet(x: number): boolean {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  return view.getUint8(0) >= 0x80;
}

function pad(sign: string, body: string, spec: PrintfSpec, zeroPadAllowed: boolean): string {
  const len = sign.length + body.length;
  if (spec.width <= len) return sign + body;
  const fill = spec.width - len;
  if (spec.flags.includes('-')) return sign + body + ' '.repeat(fill);
  if (spec.flags.includes('0') && zeroPadAllowed) return sign + '0'.repeat(fill) + body;
  return ' '.repeat(fill) + sign + body;
}

const signOf = (negative: boolean, flags: string) => (negative ? '-' : flags.includes('+') ? '+' : flags.includes(' ') ? ' ' : '');

/**
 * printf(spec, x) for a double (f, e, g) or an integer (d). `negative` is the sign bit when
 * the caller knows it better (a NaN's sign does not survive every JavaScript number move).
 */
export function printfNumber(x: number | bigint, spec: PrintfSpec, negative?: boolean): string {
  if (spec.conversion === 'd') {
    const v = BigInt(x);
    return pad(signOf(v < 0n, spec.flags), (v < 0n ? -v : v).toString(), spec, true);
  }
  const d = Number(x);
  const sign = signOf(negative ?? signBitSet(d), spec.flags);
  if (!Number.isFinite(d)) return pad(sign, Number.isNaN(d) ? 'nan' : 'inf', spec, false);
  const precision = spec.precision < 0 ? 6 : spec.precision;
  const alt = spec.flags.includes('#');
  const body =
    spec.conversion === 'f'
      ? formatFixed(d, precision, alt)
      : spec.conversion === 'e'
        ? formatScientific(d, precision, alt)
        : formatShortest(d, precision, alt);
  return pad(sign, body, spec, true);
}
