// Paging: every list route answers `{items, nextCursor}`; `paginate` follows the cursor to the end.
import { ok, type Outcome } from "./client.js";

/** One page of any list route: the envelope `{items, nextCursor}`. */
interface Page<Item> {
  items: Item[];
  nextCursor?: string | null;
}

/**
 * Every item of a list route, page after page, following `nextCursor`:
 * `for await (const space of paginate((cursor) => trellis.api.GET("/v0/spaces", { params: { query: { cursor } } })))`.
 * A failed page throws `TrellisError`.
 */
export async function* paginate<Item>(
  page: (cursor: string | undefined) => Promise<Outcome<Page<Item>>>,
): AsyncGenerator<Item, void, undefined> {
  let cursor: string | undefined;
  do {
    const data = await ok(page(cursor));
    yield* data.items;
    cursor = data.nextCursor ?? undefined;
  } while (cursor);
}
