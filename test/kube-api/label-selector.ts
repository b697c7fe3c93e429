/** The stand-in API server matches label selectors with the same parser the worker prunes with. */
export { parseLabelSelector, SelectorError, type LabelSelector } from "@/lib/cluster/label-selector";
