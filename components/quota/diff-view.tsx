/** A unified diff in a <pre>, added lines green and removed lines red. No data access here. */
export function DiffView({ diff, label, className = "" }: { diff: string; label: string; className?: string }) {
  if (!diff.trim()) return <p className="text-sm text-slate-500">No cluster object changes: the rendered objects stay as they are.</p>;
  const lines = diff.replace(/\n$/, "").split("\n");
  return (
    <pre tabIndex={0} aria-label={label} className={`overflow-auto rounded-md border border-slate-200 bg-slate-50 py-2 font-mono text-xs leading-5 text-slate-800 ${className}`}>
      <code>
        {lines.map((line, i) => (
          <span key={i} className={`block px-3 ${lineClass(line)}`}>
            {line === "" ? " " : line}
          </span>
        ))}
      </code>
    </pre>
  );
}

function lineClass(line: string): string {
  if (line.startsWith("+++") || line.startsWith("---") || line.startsWith("Index:")) return "font-semibold text-slate-900";
  if (line.startsWith("@@")) return "bg-sky-50 text-sky-800";
  if (line.startsWith("+")) return "bg-emerald-50 text-emerald-800";
  if (line.startsWith("-")) return "bg-red-50 text-red-800";
  return "";
}
