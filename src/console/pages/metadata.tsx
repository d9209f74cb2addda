// A filter by one metadata key and value (`metadata[key]=value`), and metadata shown.
import type { Query } from '../api.js';
import { Empty } from '../ui.js';

export interface MetadataPair {
  key: string;
  value: string;
}

/** The query of a metadata filter; none while its key is empty. */
export const metadataQuery = ({ key, value }: MetadataPair): Query => (key.trim() === '' ? {} : { [`metadata[${key.trim()}]`]: value });

/** The "Metadata key" and "Metadata value" fields of a filter form. */
export function MetadataFields({ pair, onChange }: { pair: MetadataPair; onChange: (pair: MetadataPair) => void }) {
  return (
    <>
      <label>
        Metadata key
        <input value={pair.key} onInput={(e) => onChange({ ...pair, key: e.currentTarget.value })} autoComplete="off" />
      </label>
      <label>
        Metadata value
        <input value={pair.value} onInput={(e) => onChange({ ...pair, value: e.currentTarget.value })} autoComplete="off" />
      </label>
    </>
  );
}

export function MetadataList({ metadata }: { metadata: Record<string, string> }) {
  const entries = Object.entries(metadata);
  if (entries.length === 0) return <Empty>No metadata.</Empty>;
  return (
    <dl class="facts">
      {entries.map(([k, v]) => [
        <dt key={`k-${k}`}>
          <code>{k}</code>
        </dt>,
        <dd key={`v-${k}`}>{v}</dd>,
      ])}
    </dl>
  );
}
