// A PromQL parser for checking the expressions shipped in deploy/monitoring, as `promtool
// check rules` parses them: the grammar of Prometheus's promql/parser (operators and their
// precedence, vector matching, aggregations with by/without, function calls with their
// argument types, selectors, ranges, subqueries, offsets), types checked (a range vector
// only where a function takes one, no range vector in arithmetic, set operators between
// instant vectors). It returns every selector, so a test can hold each metric and label it
// names against what tfgate exports. Not an evaluator. (@prometheus-io/lezer-promql, the
// Prometheus UI's grammar, would do the parsing part; it is not a dependency here.)

type ValueType = 'scalar' | 'string' | 'vector' | 'matrix';

interface Matcher {
  label: string;
  op: '=' | '!=' | '=~' | '!~';
  value: string;
}

interface Selector {
  /** The metric name, when the selector has one. */
  name?: string;
  matchers: Matcher[];
}

export interface ParsedExpr {
  type: ValueType;
  selectors: Selector[];
  /** Label names in by / without / on / ignoring / group_left / group_right clauses. */
  groupingLabels: string[];
}

export class PromQLError extends Error {}

/** Argument types of each function (`?` optional, `...` repeated), then its result. */
const FUNCTIONS: Record<string, [string[], ValueType]> = {
  abs: [['vector'], 'vector'],
  absent: [['vector'], 'vector'],
  absent_over_time: [['matrix'], 'vector'],
  ceil: [['vector'], 'vector'],
  changes: [['matrix'], 'vector'],
  clamp: [['vector', 'scalar', 'scalar'], 'vector'],
  clamp_max: [['vector', 'scalar'], 'vector'],
  clamp_min: [['vector', 'scalar'], 'vector'],
  delta: [['matrix'], 'vector'],
  deriv: [['matrix'], 'vector'],
  exp: [['vector'], 'vector'],
  floor: [['vector'], 'vector'],
  histogram_quantile: [['scalar', 'vector'], 'vector'],
  idelta: [['matrix'], 'vector'],
  increase: [['matrix'], 'vector'],
  irate: [['matrix'], 'vector'],
  label_join: [['vector', 'string', 'string', 'string...'], 'vector'],
  label_replace: [['vector', 'string', 'string', 'string', 'string'], 'vector'],
  ln: [['vector'], 'vector'],
  log10: [['vector'], 'vector'],
  log2: [['vector'], 'vector'],
  predict_linear: [['matrix', 'scalar'], 'vector'],
  rate: [['matrix'], 'vector'],
  resets: [['matrix'], 'vector'],
  round: [['vector', 'scalar?'], 'vector'],
  scalar: [['vector'], 'scalar'],
  sgn: [['vector'], 'vector'],
  sort: [['vector'], 'vector'],
  sort_desc: [['vector'], 'vector'],
  sqrt: [['vector'], 'vector'],
  time: [[], 'scalar'],
  timestamp: [['vector'], 'vector'],
  vector: [['scalar'], 'vector'],
  ...Object.fromEntries(
    ['avg', 'min', 'max', 'sum', 'count', 'last', 'stddev', 'stdvar', 'present'].map((f) => [`${f}_over_time`, [['matrix'], 'vector']]),
  ),
  quantile_over_time: [['scalar', 'matrix'], 'vector'],
};

/** Aggregation operators, and the type of the parameter they take first (none: no parameter). */
const AGGREGATORS: Record<string, ValueType | undefined> = {
  sum: undefined,
  avg: undefined,
  min: undefined,
  max: undefined,
  count: undefined,
  group: undefined,
  stddev: undefined,
  stdvar: undefined,
  topk: 'scalar',
  bottomk: 'scalar',
  quantile: 'scalar',
  count_values: 'string',
};

const BINARY_PRECEDENCE: Record<string, number> = {
  or: 1,
  and: 2,
  unless: 2,
  '==': 3,
  '!=': 3,
  '<=': 3,
  '<': 3,
  '>=': 3,
  '>': 3,
  '+': 4,
  '-': 4,
  '*': 5,
  '/': 5,
  '%': 5,
  atan2: 5,
  '^': 6,
};
const COMPARISONS = new Set(['==', '!=', '<=', '<', '>=', '>']);
const SET_OPERATORS = new Set(['and', 'or', 'unless']);
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const DURATION = /^(\d+(ms|s|m|h|d|w|y))+/;

type Token = { kind: 'number' | 'string' | 'ident' | 'duration' | 'op' | 'end'; text: string; at: number };

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let bracket = false; // inside [...]: numbers are durations
  while (i < src.length) {
    const rest = src.slice(i);
    const space = /^(\s+|#[^\n]*)/.exec(rest);
    if (space) {
      i += space[0].length;
      continue;
    }
    const push = (kind: Token['kind'], text: string) => {
      tokens.push({ kind, text, at: i });
      i += text.length;
    };
    let m: RegExpExecArray | null;
    if (bracket && (m = DURATION.exec(rest))) push('duration', m[0]);
    else if ((m = /^(0[xX][0-9a-fA-F]+|(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?)/.exec(rest))) {
      // A number followed by a duration unit is a duration (offset 5m).
      const d = DURATION.exec(rest);
      if (d && d[0].length > m[0].length) push('duration', d[0]);
      else push('number', m[0]);
    } else if ((m = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(rest))) push('ident', m[0]);
    else if ((m = /^("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`[^`]*`)/.exec(rest))) push('string', m[0]);
    else if ((m = /^(==|!=|<=|>=|=~|!~|[-+*/%^<>=(){}[\],:@])/.exec(rest))) {
      if (m[0] === '[') bracket = true;
      if (m[0] === ']') bracket = false;
      push('op', m[0]);
    } else throw new PromQLError(`unexpected character ${JSON.stringify(src[i])} at ${i}`);
  }
  tokens.push({ kind: 'end', text: '', at: src.length });
  return tokens;
}

/** A quoted string's value: "…" and '…' with Go's escapes, `…` raw. */
function unquote(s: string): string {
  if (s.startsWith('`')) return s.slice(1, -1);
  const body = s.slice(1, -1);
  const asDouble = s.startsWith("'") ? body.replace(/\\'/g, "'").replace(/(^|[^\\])"/g, '$1\\"') : body;
  try {
    return JSON.parse(`"${asDouble}"`) as string;
  } catch {
    throw new PromQLError(`bad escape in string ${s}`);
  }
}

/** Whether a matcher matches a series that lacks the label (its value then is ""). */
function matchesEmpty(m: Matcher): boolean {
  switch (m.op) {
    case '=':
      return m.value === '';
    case '!=':
      return m.value !== '';
    case '=~':
      return new RegExp(`^(?:${m.value})$`).test('');
    case '!~':
      return !new RegExp(`^(?:${m.value})$`).test('');
  }
}

class Parser {
  private pos = 0;
  readonly selectors: Selector[] = [];
  readonly groupingLabels: string[] = [];

  constructor(private readonly tokens: Token[]) {}

  private peek(offset = 0): Token {
    return this.tokens[Math.min(this.pos + offset, this.tokens.length - 1)];
  }

  private next(): Token {
    return this.tokens[this.pos++];
  }

  private fail(message: string, t = this.peek()): never {
    throw new PromQLError(`${message} at ${t.at}${t.text ? ` (near "${t.text}")` : ''}`);
  }

  private expect(text: string): Token {
    const t = this.next();
    if (t.text !== text) this.fail(`expected "${text}"`, t);
    return t;
  }

  private isKeyword(word: string, t = this.peek()): boolean {
    return t.kind === 'ident' && t.text.toLowerCase() === word;
  }

  parse(): ValueType {
    const type = this.expr(0);
    if (this.peek().kind !== 'end') this.fail('unexpected token');
    return type;
  }

  private binaryOp(): string | undefined {
    const t = this.peek();
    const text = t.kind === 'ident' ? t.text.toLowerCase() : t.kind === 'op' ? t.text : '';
    return text in BINARY_PRECEDENCE ? text : undefined;
  }

  private expr(minPrecedence: number): ValueType {
    let left = this.unary();
    for (;;) {
      const op = this.binaryOp();
      if (!op || BINARY_PRECEDENCE[op] < minPrecedence) return left;
      this.next();
      const returnBool = COMPARISONS.has(op) && this.isKeyword('bool') && !!this.next();
      const matching = this.vectorMatching();
      const right = this.expr(op === '^' ? BINARY_PRECEDENCE[op] : BINARY_PRECEDENCE[op] + 1);
      left = this.binaryType(op, left, right, returnBool, matching);
    }
  }

  /** on / ignoring (labels), then group_left / group_right (labels)? */
  private vectorMatching(): boolean {
    if (!this.isKeyword('on') && !this.isKeyword('ignoring')) return false;
    this.next();
    this.labelList();
    if (this.isKeyword('group_left') || this.isKeyword('group_right')) {
      this.next();
      if (this.peek().text === '(') this.labelList();
    }
    return true;
  }

  private binaryType(op: string, left: ValueType, right: ValueType, returnBool: boolean, matching: boolean): ValueType {
    for (const side of [left, right])
      if (side === 'matrix' || side === 'string')
        this.fail(`binary "${op}" cannot take a ${side === 'matrix' ? 'range vector' : 'string'}`);
    if (SET_OPERATORS.has(op) && (left !== 'vector' || right !== 'vector'))
      this.fail(`set operator "${op}" needs instant vectors on both sides`);
    if (matching && (left !== 'vector' || right !== 'vector')) this.fail('vector matching only applies between two instant vectors');
    if (COMPARISONS.has(op) && left === 'scalar' && right === 'scalar' && !returnBool)
      this.fail('comparisons between scalars must use the bool modifier');
    return left === 'vector' || right === 'vector' ? 'vector' : 'scalar';
  }

  private unary(): ValueType {
    const t = this.peek();
    if (t.kind === 'op' && (t.text === '-' || t.text === '+')) {
      this.next();
      const type = this.unary();
      if (type !== 'scalar' && type !== 'vector') this.fail('unary operator needs a scalar or an instant vector', t);
      return type;
    }
    return this.postfix();
  }

  private postfix(): ValueType {
    let type = this.primary();
    for (;;) {
      const t = this.peek();
      if (t.text === '[') {
        this.next();
        const range = this.next();
        if (range.kind !== 'duration') this.fail('expected a duration', range);
        if (this.peek().text === ':') {
          // A subquery: any instant vector, [range:resolution?].
          this.next();
          if (this.peek().kind === 'duration') this.next();
          if (type !== 'vector') this.fail('a subquery needs an instant vector', t);
        } else if (type !== 'vector' || !this.lastWasSelector) this.fail('a range needs a vector selector', t);
        this.expect(']');
        type = 'matrix';
      } else if (this.isKeyword('offset')) {
        this.next();
        if (this.peek().text === '-') this.next();
        if (this.next().kind !== 'duration') this.fail('expected a duration after offset');
      } else if (t.text === '@') {
        this.next();
        const at = this.next();
        if (at.kind !== 'number' && !(at.kind === 'ident' && /^(start|end)$/.test(at.text))) this.fail('expected a timestamp after @', at);
        if (this.peek().text === '(') {
          this.expect('(');
          this.expect(')');
        }
      } else return type;
    }
  }

  private lastWasSelector = false;

  private primary(): ValueType {
    this.lastWasSelector = false;
    const t = this.peek();
    if (t.kind === 'number') return (this.next(), 'scalar');
    if (t.kind === 'ident' && /^(inf|nan)$/i.test(t.text) && this.peek(1).text !== '(' && this.peek(1).text !== '{')
      return (this.next(), 'scalar');
    if (t.kind === 'string') return (this.next(), 'string');
    if (t.text === '(') {
      this.next();
      const type = this.expr(0);
      this.expect(')');
      return type;
    }
    if (t.text === '{') return this.selector(undefined);
    if (t.kind !== 'ident') this.fail('expected an expression');
    const word = t.text.toLowerCase();
    if (word in AGGREGATORS && (this.peek(1).text === '(' || this.isKeyword('by', this.peek(1)) || this.isKeyword('without', this.peek(1))))
      return this.aggregation();
    if (this.peek(1).text === '(') return this.call();
    this.next();
    return this.selector(t.text);
  }

  private selector(name: string | undefined): ValueType {
    const matchers: Matcher[] = [];
    if (this.peek().text === '{') {
      this.next();
      while (this.peek().text !== '}') {
        const label = this.next();
        if (label.kind !== 'ident' || !LABEL_NAME.test(label.text)) this.fail('expected a label name', label);
        const op = this.next();
        if (!['=', '!=', '=~', '!~'].includes(op.text)) this.fail('expected a label matcher operator', op);
        const value = this.next();
        if (value.kind !== 'string') this.fail('expected a quoted label value', value);
        const text = unquote(value.text);
        if (op.text.endsWith('~')) {
          try {
            new RegExp(`^(?:${text})$`);
          } catch (e) {
            this.fail(`bad regular expression: ${(e as Error).message}`, value);
          }
        }
        matchers.push({ label: label.text, op: op.text as Matcher['op'], value: text });
        if (this.peek().text === ',') this.next();
        else if (this.peek().text !== '}') this.fail('expected "," or "}"');
      }
      this.next();
    }
    if (!name && matchers.every(matchesEmpty)) {
      this.fail('a selector without a metric name needs a matcher that does not match the empty string');
    }
    this.selectors.push({ ...(name && { name }), matchers });
    this.lastWasSelector = true;
    return 'vector';
  }

  private labelList(): void {
    this.expect('(');
    while (this.peek().text !== ')') {
      const l = this.next();
      if (l.kind !== 'ident' || !LABEL_NAME.test(l.text)) this.fail('expected a label name', l);
      this.groupingLabels.push(l.text);
      if (this.peek().text === ',') this.next();
      else if (this.peek().text !== ')') this.fail('expected "," or ")"');
    }
    this.next();
  }

  private aggregation(): ValueType {
    const op = this.next().text.toLowerCase();
    const grouping = () => {
      if (this.isKeyword('by') || this.isKeyword('without')) {
        this.next();
        this.labelList();
      }
    };
    grouping();
    this.expect('(');
    const param = AGGREGATORS[op];
    if (param) {
      const type = this.expr(0);
      if (type !== param) this.fail(`${op} takes a ${param} parameter first`);
      this.expect(',');
    }
    const type = this.expr(0);
    if (type !== 'vector') this.fail(`${op} aggregates an instant vector`);
    this.expect(')');
    grouping();
    return 'vector';
  }

  private call(): ValueType {
    const nameToken = this.next();
    const spec = FUNCTIONS[nameToken.text];
    if (!spec) this.fail(`unknown function "${nameToken.text}"`, nameToken);
    const [params, result] = spec;
    this.expect('(');
    const args: ValueType[] = [];
    while (this.peek().text !== ')') {
      args.push(this.expr(0));
      if (this.peek().text === ',') this.next();
      else if (this.peek().text !== ')') this.fail('expected "," or ")"');
    }
    this.next();
    const required = params.filter((p) => !p.endsWith('?') && !p.endsWith('...')).length;
    const variadic = params.some((p) => p.endsWith('...'));
    if (args.length < required || (!variadic && args.length > params.length))
      this.fail(`${nameToken.text} takes ${params.length} argument(s), got ${args.length}`, nameToken);
    args.forEach((a, i) => {
      const want = (params[Math.min(i, params.length - 1)] ?? '').replace(/[?.]+$/, '');
      if (a !== want)
        this.fail(
          `argument ${i + 1} of ${nameToken.text} must be a ${want === 'matrix' ? 'range vector' : want}, got a ${a === 'matrix' ? 'range vector' : a}`,
          nameToken,
        );
    });
    return result;
  }
}

/** Parses and type-checks one PromQL expression; throws PromQLError naming the place. */
export function parsePromQL(src: string): ParsedExpr {
  const parser = new Parser(tokenize(src));
  const type = parser.parse();
  return { type, selectors: parser.selectors, groupingLabels: parser.groupingLabels };
}
