import { NotFoundMessage } from "@/components/not-found-message";

/** notFound() in a portal page: rendered inside the portal layout, which already has the page's <main>. */
export default function NotFound() {
  return <NotFoundMessage />;
}
