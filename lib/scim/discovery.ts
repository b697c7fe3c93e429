import { GROUP_SCHEMA, USER_SCHEMA } from "./resources";
import { MAX_PAGE_SIZE } from "./list";

/**
 * What /scim/v2 tells a client about itself (RFC 7643 5-7): the features it
 * supports, its two resource types, and the attributes of each schema that
 * it keeps. Attributes not listed here are accepted and ignored.
 */
const SPC_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig";
const RESOURCE_TYPE_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:ResourceType";
const SCHEMA_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Schema";

export function serviceProviderConfig(baseUrl: string) {
  return {
    schemas: [SPC_SCHEMA],
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_PAGE_SIZE },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: true },
    authenticationSchemes: [
      { type: "oauthbearertoken", name: "Bearer token", description: "A token made by `allot scim-token --expires-days N`, sent as Authorization: Bearer <token>.", primary: true },
    ],
    meta: { resourceType: "ServiceProviderConfig", location: `${baseUrl}/ServiceProviderConfig` },
  };
}

export function resourceTypes(baseUrl: string) {
  return [
    { schemas: [RESOURCE_TYPE_SCHEMA], id: "User", name: "User", endpoint: "/Users", description: "A person", schema: USER_SCHEMA, meta: { resourceType: "ResourceType", location: `${baseUrl}/ResourceTypes/User` } },
    { schemas: [RESOURCE_TYPE_SCHEMA], id: "Group", name: "Group", endpoint: "/Groups", description: "A group of people", schema: GROUP_SCHEMA, meta: { resourceType: "ResourceType", location: `${baseUrl}/ResourceTypes/Group` } },
  ];
}

type AttributeOptions = { type?: string; required?: boolean; multiValued?: boolean; mutability?: string; uniqueness?: string; caseExact?: boolean; subAttributes?: unknown[]; referenceTypes?: string[] };

function attribute(name: string, description: string, o: AttributeOptions = {}) {
  return {
    name,
    type: o.type ?? "string",
    multiValued: o.multiValued ?? false,
    description,
    required: o.required ?? false,
    caseExact: o.caseExact ?? false,
    mutability: o.mutability ?? "readWrite",
    returned: "default",
    uniqueness: o.uniqueness ?? "none",
    ...(o.subAttributes ? { subAttributes: o.subAttributes } : {}),
    ...(o.referenceTypes ? { referenceTypes: o.referenceTypes } : {}),
  };
}

const memberLike = (refType: string, mutability: string) => [
  attribute("value", "The id of the resource", { mutability }),
  attribute("$ref", "Its URI", { type: "reference", mutability, referenceTypes: [refType] }),
  attribute("display", "Its display name", { mutability: "readOnly" }),
  attribute("type", "Its type", { mutability }),
];

export function schemas(baseUrl: string) {
  const user = {
    schemas: [SCHEMA_SCHEMA],
    id: USER_SCHEMA,
    name: "User",
    description: "A person: matched to an existing one by userName, their email address",
    attributes: [
      attribute("userName", "The email address; unique, case-insensitive", { required: true, uniqueness: "server" }),
      attribute("name", "The parts of the person's name", {
        type: "complex",
        subAttributes: [attribute("formatted", "Full name"), attribute("givenName", "Given name"), attribute("familyName", "Family name")],
      }),
      attribute("displayName", "The name shown in the portal"),
      attribute("emails", "The email address (the userName)", { type: "complex", multiValued: true, mutability: "readOnly", subAttributes: [attribute("value", "Email"), attribute("type", "Kind"), attribute("primary", "Primary", { type: "boolean" })] }),
      attribute("active", "false disables the person: sessions end and sign-in is refused", { type: "boolean" }),
      attribute("groups", "Groups the person is a member of", { type: "complex", multiValued: true, mutability: "readOnly", subAttributes: memberLike("Group", "readOnly") }),
    ],
    meta: { resourceType: "Schema", location: `${baseUrl}/Schemas/${USER_SCHEMA}` },
  };
  const group = {
    schemas: [SCHEMA_SCHEMA],
    id: GROUP_SCHEMA,
    name: "Group",
    description: "A group of people, as the identity provider keeps it",
    attributes: [
      attribute("displayName", "The group's name; unique", { required: true, uniqueness: "server" }),
      attribute("members", "The people in the group", { type: "complex", multiValued: true, subAttributes: memberLike("User", "immutable") }),
    ],
    meta: { resourceType: "Schema", location: `${baseUrl}/Schemas/${GROUP_SCHEMA}` },
  };
  return [user, group];
}
