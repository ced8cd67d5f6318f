// Bounds on what one GraphQL document may ask, checked before execution: the schema is shallow, so a
// deep document is a mistake or an attack, and every `statistics` field is a database query.
import { GraphQLError, Kind, type ASTVisitor, type FragmentDefinitionNode, type SelectionSetNode, type ValidationContext } from 'graphql';

export const MAX_DEPTH = 8;
export const MAX_ROOT_FIELDS = 10;
/**
 * Fields one selection set may hold, each spread of a fragment counting its fields again. The
 * overlapping-fields rule compares the fields of a set pairwise: 1,600 same-named fields under one
 * `statistics` took 25 ms to validate.
 */
export const MAX_SET_FIELDS = 100;
/**
 * Tokens the parser reads before giving up (graphql-js `maxTokens`). Every validation rule visits every
 * token: 5,000 tokens of fields took 40 to 60 ms to validate. The introspection query is under 200 tokens,
 * a dashboard of ten statistics with twenty metrics each about 600.
 */
export const MAX_TOKENS = 2_000;
/** Brackets ({, (, [) open at once, checked before parsing (the introspection query needs about a dozen). */
export const MAX_NESTING = 64;

/**
 * How deep brackets nest in a GraphQL document, outside strings, block strings and comments; counting
 * stops once past `limit`. Linear in the text and without recursion, so it runs before the parser, which
 * recurses once per level.
 */
export function nestingDepth(source: string, limit = Infinity): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < source.length; i += 1) {
    const c = source[i];
    if (c === '#') {
      while (i < source.length && source[i] !== '\n' && source[i] !== '\r') i += 1;
    } else if (c === '"') {
      if (source.startsWith('"""', i)) {
        const close = source.indexOf('"""', i + 3);
        // Inside a block string only \""" escapes; it cannot end the string.
        let end = close;
        while (end > 0 && source[end - 1] === '\\') end = source.indexOf('"""', end + 3);
        if (end < 0) return deepest;
        i = end + 2;
      } else {
        i += 1;
        while (i < source.length && source[i] !== '"' && source[i] !== '\n' && source[i] !== '\r') i += source[i] === '\\' ? 2 : 1;
      }
    } else if (c === '{' || c === '(' || c === '[') {
      depth += 1;
      if (depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if (c === '}' || c === ')' || c === ']') {
      depth = Math.max(0, depth - 1);
    }
  }
  return deepest;
}

// Introspection (GraphiQL-style queries nest `ofType` a dozen levels) is cheap and served from memory.
const isIntrospection = (name: string) => name.startsWith('__');

/**
 * Depth and root-field count of selection sets, each fragment measured once. Walking a fragment again at
 * every spread took time exponential in the document: twenty fragments each spreading the next twice (under
 * 1 KB of query) held the event loop for 6 s. A fragment met again while being measured (a cycle, which
 * NoFragmentCycles reports) counts as empty.
 */
class FragmentMeasures {
  private readonly depths = new Map<string, number>();
  private readonly widths = new Map<string, number>();
  private readonly widest = new Map<string, number>();

  constructor(private readonly fragments: Record<string, FragmentDefinitionNode>) {}

  depthOf(set: SelectionSetNode | undefined): number {
    if (!set) return 0;
    let deepest = 0;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        if (isIntrospection(selection.name.value)) continue;
        deepest = Math.max(deepest, 1 + this.depthOf(selection.selectionSet));
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        deepest = Math.max(deepest, this.depthOf(selection.selectionSet));
      } else {
        deepest = Math.max(
          deepest,
          this.measured(this.depths, selection.name.value, (fragment) => this.depthOf(fragment.selectionSet)),
        );
      }
    }
    return deepest;
  }

  /** Fields of one selection set, each spread of a fragment counting its fields again. */
  widthOf(set: SelectionSetNode): number {
    let count = 0;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) count += isIntrospection(selection.name.value) ? 0 : 1;
      else if (selection.kind === Kind.INLINE_FRAGMENT) count += this.widthOf(selection.selectionSet);
      else count += this.measured(this.widths, selection.name.value, (fragment) => this.widthOf(fragment.selectionSet));
    }
    return count;
  }

  /** The widest selection set at or below this one (fragments measured once). */
  widestOf(set: SelectionSetNode | undefined): number {
    if (!set) return 0;
    let widest = this.widthOf(set);
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) widest = Math.max(widest, this.widestOf(selection.selectionSet));
      else if (selection.kind === Kind.INLINE_FRAGMENT) widest = Math.max(widest, this.widestOf(selection.selectionSet));
      else
        widest = Math.max(
          widest,
          this.measured(this.widest, selection.name.value, (fragment) => this.widestOf(fragment.selectionSet)),
        );
    }
    return widest;
  }

  private measured(memo: Map<string, number>, name: string, measure: (fragment: FragmentDefinitionNode) => number): number {
    const known = memo.get(name);
    if (known !== undefined) return known;
    const fragment = this.fragments[name];
    if (!fragment) return 0;
    memo.set(name, 0);
    const value = measure(fragment);
    memo.set(name, value);
    return value;
  }
}

/** Validation rule: each operation at most MAX_DEPTH fields deep, MAX_ROOT_FIELDS root fields and MAX_SET_FIELDS fields per selection set wide. */
export function QueryBoundsRule(context: ValidationContext): ASTVisitor {
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const definition of context.getDocument().definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition;
  }
  return {
    OperationDefinition(node) {
      const name = node.name ? `Operation "${node.name.value}"` : 'The operation';
      const measures = new FragmentMeasures(fragments);
      const depth = measures.depthOf(node.selectionSet);
      if (depth > MAX_DEPTH) context.reportError(new GraphQLError(`${name} is ${depth} levels deep; the limit is ${MAX_DEPTH}.`, { nodes: [node] }));
      const width = measures.widthOf(node.selectionSet);
      if (width > MAX_ROOT_FIELDS)
        context.reportError(new GraphQLError(`${name} selects ${width} root fields; the limit is ${MAX_ROOT_FIELDS}.`, { nodes: [node] }));
      const widest = measures.widestOf(node.selectionSet);
      if (widest > MAX_SET_FIELDS)
        context.reportError(new GraphQLError(`${name} selects ${widest} fields in one selection set; the limit is ${MAX_SET_FIELDS}.`, { nodes: [node] }));
    },
  };
}
