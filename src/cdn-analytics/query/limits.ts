// Bounds on what one GraphQL document may ask, checked before execution: the schema is shallow, so a
// deep document is a mistake or an attack, and every `statistics` field is a database query.
import { GraphQLError, Kind, type ASTVisitor, type FragmentDefinitionNode, type SelectionSetNode, type ValidationContext } from 'graphql';

export const MAX_DEPTH = 8;
export const MAX_ROOT_FIELDS = 10;
/** Tokens the parser reads before giving up (graphql-js `maxTokens`). */
export const MAX_TOKENS = 5_000;

// Introspection (GraphiQL-style queries nest `ofType` a dozen levels) is cheap and served from memory.
const isIntrospection = (name: string) => name.startsWith('__');

function depthOf(set: SelectionSetNode | undefined, fragments: Record<string, FragmentDefinitionNode>, seen: Set<string>): number {
  if (!set) return 0;
  let deepest = 0;
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) {
      if (isIntrospection(selection.name.value)) continue;
      deepest = Math.max(deepest, 1 + depthOf(selection.selectionSet, fragments, seen));
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      deepest = Math.max(deepest, depthOf(selection.selectionSet, fragments, seen));
    } else {
      const name = selection.name.value;
      // A fragment cycle is reported by the standard NoFragmentCycles rule; just do not loop on it.
      if (seen.has(name) || !fragments[name]) continue;
      deepest = Math.max(deepest, depthOf(fragments[name].selectionSet, fragments, new Set([...seen, name])));
    }
  }
  return deepest;
}

function rootFieldCount(set: SelectionSetNode, fragments: Record<string, FragmentDefinitionNode>, seen: Set<string>): number {
  let count = 0;
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) count += isIntrospection(selection.name.value) ? 0 : 1;
    else if (selection.kind === Kind.INLINE_FRAGMENT) count += rootFieldCount(selection.selectionSet, fragments, seen);
    else if (!seen.has(selection.name.value) && fragments[selection.name.value]) {
      count += rootFieldCount(fragments[selection.name.value].selectionSet, fragments, new Set([...seen, selection.name.value]));
    }
  }
  return count;
}

/** Validation rule: each operation at most MAX_DEPTH fields deep and MAX_ROOT_FIELDS root fields wide. */
export function QueryBoundsRule(context: ValidationContext): ASTVisitor {
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const definition of context.getDocument().definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition;
  }
  return {
    OperationDefinition(node) {
      const name = node.name ? `Operation "${node.name.value}"` : 'The operation';
      const depth = depthOf(node.selectionSet, fragments, new Set());
      if (depth > MAX_DEPTH) context.reportError(new GraphQLError(`${name} is ${depth} levels deep; the limit is ${MAX_DEPTH}.`, { nodes: [node] }));
      const width = rootFieldCount(node.selectionSet, fragments, new Set());
      if (width > MAX_ROOT_FIELDS) context.reportError(new GraphQLError(`${name} selects ${width} root fields; the limit is ${MAX_ROOT_FIELDS}.`, { nodes: [node] }));
    },
  };
}
