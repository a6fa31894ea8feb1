import { CAPTURE, LINK } from '../helpers/operations.ts';
import type { DashboardServer } from './dashboard-server.ts';

/** A seeded workspace of a software team's life: who, which projects, what was decided, documents. */
export interface SeededWorkspace {
  workspace: string;
  /** Ids by role. */
  people: string[];
  projects: string[];
  decisions: string[];
  notes: string[];
  documents: string[];
  /** The project nearly everything is part of: more neighbours than one graphView answers. */
  hub: string;
  /** The oldest note, far beyond the 50 newest entries. */
  oldest: { id: string; content: string };
  total: number;
}

const PEOPLE = ['Mara Lindqvist', 'Tomasz Wójcik', 'Aiko Tanaka', 'Rafael Ortiz', 'Nadia Haddad', 'Sven Berg'];
const PROJECTS = ['billing ledger', 'search relaunch', 'mobile onboarding', 'data retention'];
const TOPICS = ['caching', 'latency', 'schema migration', 'on-call', 'pricing', 'accessibility', 'backups', 'alerts'];

/** Runs `jobs` a few at a time, in order of start. */
async function inBatches<T>(jobs: (() => Promise<T>)[], size = 8): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < jobs.length; i += size) out.push(...(await Promise.all(jobs.slice(i, i + size).map((j) => j()))));
  return out;
}

/**
 * Captures `notes` semantic notes (the first one is the oldest), the people, projects, some decisions
 * and documents, and links them with typed edges as a team's workspace would be.
 */
export async function seedWorkspace(srv: DashboardServer, workspace: string, notes = 240): Promise<SeededWorkspace> {
  const capture = async (input: Record<string, unknown>) =>
    (await srv.gql<{ capture: { entry: { id: string } } }>(CAPTURE, { input }, workspace)).capture.entry.id;
  const link = (src: string, dst: string, type: string) =>
    srv.gql(LINK, { input: { src, dst, type } }, workspace).catch(() => undefined);

  const oldestContent = 'Note 0: the zeppelin cache was retired after the quokka outage of 2019.';
  const oldest = await capture({ content: oldestContent, kind: 'SEMANTIC', tags: ['history'] });
  const noteIds = [oldest];
  noteIds.push(
    ...(await inBatches(
      Array.from({ length: notes - 1 }, (_, k) => () => {
        const i = k + 1;
        const topic = TOPICS[i % TOPICS.length];
        return capture({
          content: `Note ${i}: what we learned about ${topic} in sprint ${Math.floor(i / 10)}, item ${i}.`,
          kind: i % 7 === 0 ? 'PROCEDURAL' : 'SEMANTIC',
          tags: [topic?.replaceAll(' ', '-') ?? 'misc'],
          importance: (i % 10) / 10,
        });
      }),
    )),
  );
  const people = await inBatches(
    PEOPLE.map((name) => () => capture({ content: `${name}, engineer.`, kind: 'PERSON' })),
  );
  const projects = await inBatches(
    PROJECTS.map((p) => () => capture({ content: `Project: the ${p}.`, kind: 'PROJECT', tags: ['project'] })),
  );
  const decisions = await inBatches(
    Array.from(
      { length: 30 },
      (_, i) => () =>
        capture({ content: `Decision ${i}: we chose option ${i % 3} for the ${PROJECTS[i % 4]}.`, kind: 'EPISODIC' }),
    ),
  );
  const documents = await inBatches(
    Array.from(
      { length: 12 },
      (_, i) => () => capture({ content: `Design document ${i} for the ${PROJECTS[i % 4]}.`, kind: 'DOCUMENT' }),
    ),
  );
  const hub = projects[0] as string;
  const jobs: (() => Promise<unknown>)[] = [];
  decisions.forEach((d, i) => {
    jobs.push(() => link(d, projects[i % 4] as string, 'PART_OF_PROJECT'));
    jobs.push(() => link(d, people[i % PEOPLE.length] as string, 'ABOUT_PERSON'));
    if (i > 0) jobs.push(() => link(d, decisions[i - 1] as string, 'FOLLOWS'));
  });
  for (const [i, doc] of documents.entries()) jobs.push(() => link(doc, decisions[i] as string, 'DOCUMENT_OF'));
  // The hub collects many notes; other notes relate in a chain.
  for (const n of noteIds.slice(1, 90)) jobs.push(() => link(n, hub, 'PART_OF_PROJECT'));
  for (let i = 90; i < 160; i++) {
    jobs.push(() => link(noteIds[i] as string, noteIds[90 + ((i - 89) % 70)] as string, 'RELATES_TO'));
  }
  await inBatches(jobs);
  return {
    workspace,
    people,
    projects,
    decisions,
    notes: noteIds,
    documents,
    hub,
    oldest: { id: oldest, content: oldestContent },
    total: noteIds.length + people.length + projects.length + decisions.length + documents.length,
  };
}
