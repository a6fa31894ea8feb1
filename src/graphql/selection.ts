import { type GraphQLResolveInfo, Kind, type SelectionSetNode } from 'graphql';

/**
 * The names of the fields the operation selects on the object at `path` below the field
 * being resolved (through fragments; `__typename` included), or null when it selects
 * nothing there.
 *
 * @example selectedFields(info, ['nodes', 'entry']) // Set { 'id', 'kind' } for graphView { nodes { entry { id kind } } }
 */
export function selectedFields(info: GraphQLResolveInfo, path: readonly string[]): Set<string> | null {
  const names = new Set<string>();
  let found = false;
  // Each fragment once per depth, as execution collects fields: spreads of spreads would
  // otherwise be walked once per path to them.
  const seen = new Set<string>();
  const once = (name: string, depth: number) => {
    const key = `${depth}:${name}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  };
  const collect = (set: SelectionSetNode): void => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) names.add(selection.name.value);
      else if (selection.kind === Kind.INLINE_FRAGMENT) collect(selection.selectionSet);
      else {
        const fragment = info.fragments[selection.name.value];
        if (fragment && once(selection.name.value, 0)) collect(fragment.selectionSet);
      }
    }
  };
  const visit = (set: SelectionSetNode, rest: readonly string[]): void => {
    const [name, ...deeper] = rest;
    if (name === undefined) {
      found = true;
      collect(set);
      return;
    }
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value === name && selection.selectionSet) visit(selection.selectionSet, deeper);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        visit(selection.selectionSet, rest);
      } else {
        const fragment = info.fragments[selection.name.value];
        if (fragment && once(selection.name.value, rest.length)) visit(fragment.selectionSet, rest);
      }
    }
  };
  for (const node of info.fieldNodes) if (node.selectionSet) visit(node.selectionSet, path);
  return found ? names : null;
}

/**
 * The columns a type's fields read from its row, given which fields are selected: from the
 * type's map of field to columns, or null (read whole rows) when a selected field is not
 * in it. `__typename` reads none.
 */
export function columnsFor<C extends string>(
  map: Readonly<Record<string, readonly C[]>>,
  fields: ReadonlySet<string>,
): C[] | null {
  const columns = new Set<C>();
  for (const field of fields) {
    if (field === '__typename') continue;
    const needs = Object.hasOwn(map, field) ? map[field] : undefined;
    if (!needs) return null;
    for (const column of needs) columns.add(column);
  }
  return [...columns];
}
