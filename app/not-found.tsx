import { NotFoundMessage } from "@/components/not-found-message";

/** Unknown URLs, outside any layout with a <main> of its own. */
export default function NotFound() {
  return (
    <main>
      <NotFoundMessage />
    </main>
  );
}
