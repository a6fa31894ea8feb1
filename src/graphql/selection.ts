import { type GraphQLResolveInfo, Kind, type SelectionSetNode } from 'graphql';

/**
 * Whether the operation asks, below the field being resolved, for the field at `path`
 * (response names aside: fields are matched by name, through fragments, whatever their
 * directives say). A resolver uses it to read data its children will need in the same
 * statement as its own; a yes it should not have had costs a read, never a wrong answer.
 *
 * @example selects(info, ['nodes', 'entry']) // true for graphView { nodes { entry { id } } }
 */
export function selects(info: GraphQLResolveInfo, path: readonly string[]): boolean {
  return info.fieldNodes.some((node) => node.selectionSet !== undefined && within(node.selectionSet, path, info));
}

function within(set: SelectionSetNode, path: readonly string[], info: GraphQLResolveInfo): boolean {
  const [name, ...rest] = path;
  if (name === undefined) return true;
  return set.selections.some((selection) => {
    if (selection.kind === Kind.FIELD) {
      if (selection.name.value !== name) return false;
      return rest.length === 0 || (selection.selectionSet !== undefined && within(selection.selectionSet, rest, info));
    }
    if (selection.kind === Kind.INLINE_FRAGMENT) return within(selection.selectionSet, path, info);
    const fragment = info.fragments[selection.name.value];
    return fragment !== undefined && within(fragment.selectionSet, path, info);
  });
}
