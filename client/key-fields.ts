import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  buildSchema,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type GraphQLSchema,
  getNamedType,
  isAbstractType,
  isObjectType,
  Kind,
  parse,
  type SelectionSetNode,
  TypeInfo,
  visit,
  visitWithTypeInfo,
} from 'graphql';
import { keyFields } from './src/caches/types.ts';

/**
 * Checks the package's documents against the caches' keys: wherever a document selects a keyed type (see
 * `keyFields`), it must select that type's key fields too, or Apollo throws "Missing field 'id' while extracting
 * keyFields" and graphcache warns "Invalid key" when the result is written.
 */

const at = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** The shipped operations and fragments, as one document (fragments are shared across files). */
export function shippedDocuments(): { name: string; text: string }[] {
  const dir = at('./src/operations/');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.graphql'))
    .sort()
    .map((f) => ({ name: f, text: readFileSync(`${dir}${f}`, 'utf8') }));
}

export const shippedSchema = (): GraphQLSchema => buildSchema(readFileSync(at('../schema.graphql'), 'utf8'));

const keyed = keyFields as Record<string, readonly string[]>;

/** The field names (by response name's field) a selection set selects on `type`, through fragments. */
function selectedFields(
  set: SelectionSetNode,
  type: string,
  schema: GraphQLSchema,
  fragments: Map<string, FragmentDefinitionNode>,
  into = new Set<string>(),
  seen = new Set<string>(),
): Set<string> {
  const applies = (condition: string | undefined) => {
    if (!condition || condition === type) return true;
    const t = schema.getType(condition);
    const concrete = schema.getType(type);
    return !!t && isAbstractType(t) && isObjectType(concrete) && schema.isSubType(t, concrete);
  };
  for (const sel of set.selections) {
    if (sel.kind === Kind.FIELD) into.add(sel.name.value);
    else if (sel.kind === Kind.INLINE_FRAGMENT) {
      if (applies(sel.typeCondition?.name.value)) selectedFields(sel.selectionSet, type, schema, fragments, into, seen);
    } else {
      const name = sel.name.value;
      const frag = fragments.get(name);
      if (frag && !seen.has(name) && applies(frag.typeCondition.name.value)) {
        seen.add(name);
        selectedFields(frag.selectionSet, type, schema, fragments, into, seen);
      }
    }
  }
  return into;
}

const concreteTypes = (schema: GraphQLSchema, type: GraphQLNamedType): string[] =>
  isAbstractType(type) ? schema.getPossibleTypes(type).map((t) => t.name) : [type.name];

/** Every place the documents select a keyed type without its key, as readable lines (none when all is well). */
export function missingKeyFields(schema: GraphQLSchema, documents: { name: string; text: string }[]): string[] {
  const parsed = documents.map((d) => ({ name: d.name, doc: parse(d.text) as DocumentNode }));
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const { doc } of parsed) {
    for (const def of doc.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  }
  const problems: string[] = [];
  for (const { name, doc } of parsed) {
    const info = new TypeInfo(schema);
    const path: string[] = [];
    visit(
      doc,
      visitWithTypeInfo(info, {
        Field: {
          enter(node) {
            path.push(node.alias?.value ?? node.name.value);
            const type = info.getType();
            if (!node.selectionSet || !type) return;
            for (const concrete of concreteTypes(schema, getNamedType(type))) {
              const keys = keyed[concrete];
              if (!keys) continue;
              const selected = selectedFields(node.selectionSet, concrete, schema, fragments);
              for (const key of keys) {
                if (!selected.has(key)) problems.push(`${name}: ${path.join('.')} selects ${concrete} without ${key}`);
              }
            }
          },
          leave() {
            path.pop();
          },
        },
      }),
    );
  }
  return problems;
}
