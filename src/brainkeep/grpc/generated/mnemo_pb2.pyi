from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RememberRequest(_message.Message):
    __slots__ = ("content", "memory_type", "scope", "importance", "tags", "metadata", "thread_id", "ttl_seconds", "agent_id", "source_type", "source_id", "org_id", "decay_rate", "created_by", "related_to")
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    MEMORY_TYPE_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    IMPORTANCE_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    TTL_SECONDS_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    SOURCE_TYPE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_ID_FIELD_NUMBER: _ClassVar[int]
    ORG_ID_FIELD_NUMBER: _ClassVar[int]
    DECAY_RATE_FIELD_NUMBER: _ClassVar[int]
    CREATED_BY_FIELD_NUMBER: _ClassVar[int]
    RELATED_TO_FIELD_NUMBER: _ClassVar[int]
    content: str
    memory_type: str
    scope: str
    importance: float
    tags: _containers.RepeatedScalarFieldContainer[str]
    metadata: str
    thread_id: str
    ttl_seconds: int
    agent_id: str
    source_type: str
    source_id: str
    org_id: str
    decay_rate: float
    created_by: str
    related_to: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, content: _Optional[str] = ..., memory_type: _Optional[str] = ..., scope: _Optional[str] = ..., importance: _Optional[float] = ..., tags: _Optional[_Iterable[str]] = ..., metadata: _Optional[str] = ..., thread_id: _Optional[str] = ..., ttl_seconds: _Optional[int] = ..., agent_id: _Optional[str] = ..., source_type: _Optional[str] = ..., source_id: _Optional[str] = ..., org_id: _Optional[str] = ..., decay_rate: _Optional[float] = ..., created_by: _Optional[str] = ..., related_to: _Optional[_Iterable[str]] = ...) -> None: ...

class RememberResponse(_message.Message):
    __slots__ = ("id", "content_hash")
    ID_FIELD_NUMBER: _ClassVar[int]
    CONTENT_HASH_FIELD_NUMBER: _ClassVar[int]
    id: str
    content_hash: str
    def __init__(self, id: _Optional[str] = ..., content_hash: _Optional[str] = ...) -> None: ...

class RecallRequest(_message.Message):
    __slots__ = ("query", "limit", "strategy", "min_importance", "tags", "agent_id", "memory_type", "scope", "org_id", "hybrid_weights", "rrf_k", "as_of", "explain", "orientation_cache")
    QUERY_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    STRATEGY_FIELD_NUMBER: _ClassVar[int]
    MIN_IMPORTANCE_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    MEMORY_TYPE_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    ORG_ID_FIELD_NUMBER: _ClassVar[int]
    HYBRID_WEIGHTS_FIELD_NUMBER: _ClassVar[int]
    RRF_K_FIELD_NUMBER: _ClassVar[int]
    AS_OF_FIELD_NUMBER: _ClassVar[int]
    EXPLAIN_FIELD_NUMBER: _ClassVar[int]
    ORIENTATION_CACHE_FIELD_NUMBER: _ClassVar[int]
    query: str
    limit: int
    strategy: str
    min_importance: float
    tags: _containers.RepeatedScalarFieldContainer[str]
    agent_id: str
    memory_type: str
    scope: str
    org_id: str
    hybrid_weights: _containers.RepeatedScalarFieldContainer[float]
    rrf_k: float
    as_of: str
    explain: bool
    orientation_cache: OrientationCacheRequest
    def __init__(self, query: _Optional[str] = ..., limit: _Optional[int] = ..., strategy: _Optional[str] = ..., min_importance: _Optional[float] = ..., tags: _Optional[_Iterable[str]] = ..., agent_id: _Optional[str] = ..., memory_type: _Optional[str] = ..., scope: _Optional[str] = ..., org_id: _Optional[str] = ..., hybrid_weights: _Optional[_Iterable[float]] = ..., rrf_k: _Optional[float] = ..., as_of: _Optional[str] = ..., explain: _Optional[bool] = ..., orientation_cache: _Optional[_Union[OrientationCacheRequest, _Mapping]] = ...) -> None: ...

class OrientationCacheRequest(_message.Message):
    __slots__ = ("namespace", "token_budget", "include_in_response", "distill")
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    TOKEN_BUDGET_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_IN_RESPONSE_FIELD_NUMBER: _ClassVar[int]
    DISTILL_FIELD_NUMBER: _ClassVar[int]
    namespace: str
    token_budget: int
    include_in_response: bool
    distill: bool
    def __init__(self, namespace: _Optional[str] = ..., token_budget: _Optional[int] = ..., include_in_response: _Optional[bool] = ..., distill: _Optional[bool] = ...) -> None: ...

class OrientationCacheResponse(_message.Message):
    __slots__ = ("namespace", "entities", "constants", "schemas", "token_estimate", "budget", "hit_count")
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    ENTITIES_FIELD_NUMBER: _ClassVar[int]
    CONSTANTS_FIELD_NUMBER: _ClassVar[int]
    SCHEMAS_FIELD_NUMBER: _ClassVar[int]
    TOKEN_ESTIMATE_FIELD_NUMBER: _ClassVar[int]
    BUDGET_FIELD_NUMBER: _ClassVar[int]
    HIT_COUNT_FIELD_NUMBER: _ClassVar[int]
    namespace: str
    entities: _containers.RepeatedCompositeFieldContainer[OrientationEntry]
    constants: _containers.RepeatedCompositeFieldContainer[OrientationEntry]
    schemas: _containers.RepeatedCompositeFieldContainer[OrientationEntry]
    token_estimate: int
    budget: int
    hit_count: int
    def __init__(self, namespace: _Optional[str] = ..., entities: _Optional[_Iterable[_Union[OrientationEntry, _Mapping]]] = ..., constants: _Optional[_Iterable[_Union[OrientationEntry, _Mapping]]] = ..., schemas: _Optional[_Iterable[_Union[OrientationEntry, _Mapping]]] = ..., token_estimate: _Optional[int] = ..., budget: _Optional[int] = ..., hit_count: _Optional[int] = ...) -> None: ...

class OrientationEntry(_message.Message):
    __slots__ = ("key", "value", "freq", "token_estimate")
    KEY_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    FREQ_FIELD_NUMBER: _ClassVar[int]
    TOKEN_ESTIMATE_FIELD_NUMBER: _ClassVar[int]
    key: str
    value: str
    freq: int
    token_estimate: int
    def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ..., freq: _Optional[int] = ..., token_estimate: _Optional[int] = ...) -> None: ...

class ScoreBreakdown(_message.Message):
    __slots__ = ("vector", "bm25", "graph", "recency", "rrf_rank")
    VECTOR_FIELD_NUMBER: _ClassVar[int]
    BM25_FIELD_NUMBER: _ClassVar[int]
    GRAPH_FIELD_NUMBER: _ClassVar[int]
    RECENCY_FIELD_NUMBER: _ClassVar[int]
    RRF_RANK_FIELD_NUMBER: _ClassVar[int]
    vector: float
    bm25: float
    graph: float
    recency: float
    rrf_rank: int
    def __init__(self, vector: _Optional[float] = ..., bm25: _Optional[float] = ..., graph: _Optional[float] = ..., recency: _Optional[float] = ..., rrf_rank: _Optional[int] = ...) -> None: ...

class RecallResponse(_message.Message):
    __slots__ = ("memories", "total", "orientation_cache", "reconstruction")
    MEMORIES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    ORIENTATION_CACHE_FIELD_NUMBER: _ClassVar[int]
    RECONSTRUCTION_FIELD_NUMBER: _ClassVar[int]
    memories: _containers.RepeatedCompositeFieldContainer[ScoredMemory]
    total: int
    orientation_cache: OrientationCacheResponse
    reconstruction: Reconstruction
    def __init__(self, memories: _Optional[_Iterable[_Union[ScoredMemory, _Mapping]]] = ..., total: _Optional[int] = ..., orientation_cache: _Optional[_Union[OrientationCacheResponse, _Mapping]] = ..., reconstruction: _Optional[_Union[Reconstruction, _Mapping]] = ...) -> None: ...

class Reconstruction(_message.Message):
    __slots__ = ("cue", "summary", "source_ids", "linked_context_ids", "confidence")
    CUE_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    SOURCE_IDS_FIELD_NUMBER: _ClassVar[int]
    LINKED_CONTEXT_IDS_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    cue: str
    summary: str
    source_ids: _containers.RepeatedScalarFieldContainer[str]
    linked_context_ids: _containers.RepeatedScalarFieldContainer[str]
    confidence: float
    def __init__(self, cue: _Optional[str] = ..., summary: _Optional[str] = ..., source_ids: _Optional[_Iterable[str]] = ..., linked_context_ids: _Optional[_Iterable[str]] = ..., confidence: _Optional[float] = ...) -> None: ...

class ScoredMemory(_message.Message):
    __slots__ = ("id", "content", "memory_type", "importance", "score", "created_at", "agent_id", "scope", "tags", "metadata", "access_count", "updated_at", "score_breakdown")
    ID_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    MEMORY_TYPE_FIELD_NUMBER: _ClassVar[int]
    IMPORTANCE_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    ACCESS_COUNT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    SCORE_BREAKDOWN_FIELD_NUMBER: _ClassVar[int]
    id: str
    content: str
    memory_type: str
    importance: float
    score: float
    created_at: str
    agent_id: str
    scope: str
    tags: _containers.RepeatedScalarFieldContainer[str]
    metadata: str
    access_count: int
    updated_at: str
    score_breakdown: ScoreBreakdown
    def __init__(self, id: _Optional[str] = ..., content: _Optional[str] = ..., memory_type: _Optional[str] = ..., importance: _Optional[float] = ..., score: _Optional[float] = ..., created_at: _Optional[str] = ..., agent_id: _Optional[str] = ..., scope: _Optional[str] = ..., tags: _Optional[_Iterable[str]] = ..., metadata: _Optional[str] = ..., access_count: _Optional[int] = ..., updated_at: _Optional[str] = ..., score_breakdown: _Optional[_Union[ScoreBreakdown, _Mapping]] = ...) -> None: ...

class ForgetRequest(_message.Message):
    __slots__ = ("memory_ids", "strategy", "agent_id")
    MEMORY_IDS_FIELD_NUMBER: _ClassVar[int]
    STRATEGY_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    memory_ids: _containers.RepeatedScalarFieldContainer[str]
    strategy: str
    agent_id: str
    def __init__(self, memory_ids: _Optional[_Iterable[str]] = ..., strategy: _Optional[str] = ..., agent_id: _Optional[str] = ...) -> None: ...

class ForgetResponse(_message.Message):
    __slots__ = ("forgotten", "errors")
    FORGOTTEN_FIELD_NUMBER: _ClassVar[int]
    ERRORS_FIELD_NUMBER: _ClassVar[int]
    forgotten: _containers.RepeatedScalarFieldContainer[str]
    errors: _containers.RepeatedCompositeFieldContainer[ForgetError]
    def __init__(self, forgotten: _Optional[_Iterable[str]] = ..., errors: _Optional[_Iterable[_Union[ForgetError, _Mapping]]] = ...) -> None: ...

class ForgetError(_message.Message):
    __slots__ = ("id", "error")
    ID_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    id: str
    error: str
    def __init__(self, id: _Optional[str] = ..., error: _Optional[str] = ...) -> None: ...

class HealthRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class HealthResponse(_message.Message):
    __slots__ = ("status", "version")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    status: str
    version: str
    def __init__(self, status: _Optional[str] = ..., version: _Optional[str] = ...) -> None: ...

class ShareRequest(_message.Message):
    __slots__ = ("memory_id", "target_agent_id", "target_agent_ids", "permission", "expires_in_hours", "agent_id", "memory_ids")
    MEMORY_ID_FIELD_NUMBER: _ClassVar[int]
    TARGET_AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    TARGET_AGENT_IDS_FIELD_NUMBER: _ClassVar[int]
    PERMISSION_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_IN_HOURS_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    MEMORY_IDS_FIELD_NUMBER: _ClassVar[int]
    memory_id: str
    target_agent_id: str
    target_agent_ids: _containers.RepeatedScalarFieldContainer[str]
    permission: str
    expires_in_hours: float
    agent_id: str
    memory_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, memory_id: _Optional[str] = ..., target_agent_id: _Optional[str] = ..., target_agent_ids: _Optional[_Iterable[str]] = ..., permission: _Optional[str] = ..., expires_in_hours: _Optional[float] = ..., agent_id: _Optional[str] = ..., memory_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class ShareResponse(_message.Message):
    __slots__ = ("acl_id", "acl_ids", "memory_id", "shared_with", "shared_with_all", "permission")
    ACL_ID_FIELD_NUMBER: _ClassVar[int]
    ACL_IDS_FIELD_NUMBER: _ClassVar[int]
    MEMORY_ID_FIELD_NUMBER: _ClassVar[int]
    SHARED_WITH_FIELD_NUMBER: _ClassVar[int]
    SHARED_WITH_ALL_FIELD_NUMBER: _ClassVar[int]
    PERMISSION_FIELD_NUMBER: _ClassVar[int]
    acl_id: str
    acl_ids: _containers.RepeatedScalarFieldContainer[str]
    memory_id: str
    shared_with: str
    shared_with_all: _containers.RepeatedScalarFieldContainer[str]
    permission: str
    def __init__(self, acl_id: _Optional[str] = ..., acl_ids: _Optional[_Iterable[str]] = ..., memory_id: _Optional[str] = ..., shared_with: _Optional[str] = ..., shared_with_all: _Optional[_Iterable[str]] = ..., permission: _Optional[str] = ...) -> None: ...

class CheckpointRequest(_message.Message):
    __slots__ = ("thread_id", "agent_id", "branch_name", "state_snapshot", "label", "metadata")
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    BRANCH_NAME_FIELD_NUMBER: _ClassVar[int]
    STATE_SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    thread_id: str
    agent_id: str
    branch_name: str
    state_snapshot: str
    label: str
    metadata: str
    def __init__(self, thread_id: _Optional[str] = ..., agent_id: _Optional[str] = ..., branch_name: _Optional[str] = ..., state_snapshot: _Optional[str] = ..., label: _Optional[str] = ..., metadata: _Optional[str] = ...) -> None: ...

class CheckpointResponse(_message.Message):
    __slots__ = ("checkpoint_id", "parent_id", "branch_name")
    CHECKPOINT_ID_FIELD_NUMBER: _ClassVar[int]
    PARENT_ID_FIELD_NUMBER: _ClassVar[int]
    BRANCH_NAME_FIELD_NUMBER: _ClassVar[int]
    checkpoint_id: str
    parent_id: str
    branch_name: str
    def __init__(self, checkpoint_id: _Optional[str] = ..., parent_id: _Optional[str] = ..., branch_name: _Optional[str] = ...) -> None: ...

class ConsolidateRequest(_message.Message):
    __slots__ = ("memory_ids", "topic_name", "agent_id", "summary", "supersede", "thread_id", "metadata")
    MEMORY_IDS_FIELD_NUMBER: _ClassVar[int]
    TOPIC_NAME_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    SUPERSEDE_FIELD_NUMBER: _ClassVar[int]
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    memory_ids: _containers.RepeatedScalarFieldContainer[str]
    topic_name: str
    agent_id: str
    summary: str
    supersede: str
    thread_id: str
    metadata: str
    def __init__(self, memory_ids: _Optional[_Iterable[str]] = ..., topic_name: _Optional[str] = ..., agent_id: _Optional[str] = ..., summary: _Optional[str] = ..., supersede: _Optional[str] = ..., thread_id: _Optional[str] = ..., metadata: _Optional[str] = ...) -> None: ...

class ConsolidateResponse(_message.Message):
    __slots__ = ("topic_document_id", "topic_name", "source_count", "version", "superseded_id", "member_ids", "content_hash", "consolidation_event_id", "revision_event_id")
    TOPIC_DOCUMENT_ID_FIELD_NUMBER: _ClassVar[int]
    TOPIC_NAME_FIELD_NUMBER: _ClassVar[int]
    SOURCE_COUNT_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SUPERSEDED_ID_FIELD_NUMBER: _ClassVar[int]
    MEMBER_IDS_FIELD_NUMBER: _ClassVar[int]
    CONTENT_HASH_FIELD_NUMBER: _ClassVar[int]
    CONSOLIDATION_EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    REVISION_EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    topic_document_id: str
    topic_name: str
    source_count: int
    version: int
    superseded_id: str
    member_ids: _containers.RepeatedScalarFieldContainer[str]
    content_hash: str
    consolidation_event_id: str
    revision_event_id: str
    def __init__(self, topic_document_id: _Optional[str] = ..., topic_name: _Optional[str] = ..., source_count: _Optional[int] = ..., version: _Optional[int] = ..., superseded_id: _Optional[str] = ..., member_ids: _Optional[_Iterable[str]] = ..., content_hash: _Optional[str] = ..., consolidation_event_id: _Optional[str] = ..., revision_event_id: _Optional[str] = ...) -> None: ...

class BranchRequest(_message.Message):
    __slots__ = ("thread_id", "agent_id", "new_branch_name", "source_checkpoint_id", "source_branch")
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    NEW_BRANCH_NAME_FIELD_NUMBER: _ClassVar[int]
    SOURCE_CHECKPOINT_ID_FIELD_NUMBER: _ClassVar[int]
    SOURCE_BRANCH_FIELD_NUMBER: _ClassVar[int]
    thread_id: str
    agent_id: str
    new_branch_name: str
    source_checkpoint_id: str
    source_branch: str
    def __init__(self, thread_id: _Optional[str] = ..., agent_id: _Optional[str] = ..., new_branch_name: _Optional[str] = ..., source_checkpoint_id: _Optional[str] = ..., source_branch: _Optional[str] = ...) -> None: ...

class BranchResponse(_message.Message):
    __slots__ = ("checkpoint_id", "branch_name", "source_checkpoint_id")
    CHECKPOINT_ID_FIELD_NUMBER: _ClassVar[int]
    BRANCH_NAME_FIELD_NUMBER: _ClassVar[int]
    SOURCE_CHECKPOINT_ID_FIELD_NUMBER: _ClassVar[int]
    checkpoint_id: str
    branch_name: str
    source_checkpoint_id: str
    def __init__(self, checkpoint_id: _Optional[str] = ..., branch_name: _Optional[str] = ..., source_checkpoint_id: _Optional[str] = ...) -> None: ...

class MergeRequest(_message.Message):
    __slots__ = ("thread_id", "agent_id", "source_branch", "target_branch", "strategy", "cherry_pick_ids")
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    SOURCE_BRANCH_FIELD_NUMBER: _ClassVar[int]
    TARGET_BRANCH_FIELD_NUMBER: _ClassVar[int]
    STRATEGY_FIELD_NUMBER: _ClassVar[int]
    CHERRY_PICK_IDS_FIELD_NUMBER: _ClassVar[int]
    thread_id: str
    agent_id: str
    source_branch: str
    target_branch: str
    strategy: str
    cherry_pick_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, thread_id: _Optional[str] = ..., agent_id: _Optional[str] = ..., source_branch: _Optional[str] = ..., target_branch: _Optional[str] = ..., strategy: _Optional[str] = ..., cherry_pick_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class MergeResponse(_message.Message):
    __slots__ = ("checkpoint_id", "target_branch", "merged_memory_count")
    CHECKPOINT_ID_FIELD_NUMBER: _ClassVar[int]
    TARGET_BRANCH_FIELD_NUMBER: _ClassVar[int]
    MERGED_MEMORY_COUNT_FIELD_NUMBER: _ClassVar[int]
    checkpoint_id: str
    target_branch: str
    merged_memory_count: int
    def __init__(self, checkpoint_id: _Optional[str] = ..., target_branch: _Optional[str] = ..., merged_memory_count: _Optional[int] = ...) -> None: ...

class ReplayRequest(_message.Message):
    __slots__ = ("thread_id", "agent_id", "checkpoint_id", "branch_name", "as_of")
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    CHECKPOINT_ID_FIELD_NUMBER: _ClassVar[int]
    BRANCH_NAME_FIELD_NUMBER: _ClassVar[int]
    AS_OF_FIELD_NUMBER: _ClassVar[int]
    thread_id: str
    agent_id: str
    checkpoint_id: str
    branch_name: str
    as_of: str
    def __init__(self, thread_id: _Optional[str] = ..., agent_id: _Optional[str] = ..., checkpoint_id: _Optional[str] = ..., branch_name: _Optional[str] = ..., as_of: _Optional[str] = ...) -> None: ...

class ReplayResponse(_message.Message):
    __slots__ = ("checkpoint_json", "memories", "event_count", "chain_valid", "chain_total", "chain_verified")
    CHECKPOINT_JSON_FIELD_NUMBER: _ClassVar[int]
    MEMORIES_FIELD_NUMBER: _ClassVar[int]
    EVENT_COUNT_FIELD_NUMBER: _ClassVar[int]
    CHAIN_VALID_FIELD_NUMBER: _ClassVar[int]
    CHAIN_TOTAL_FIELD_NUMBER: _ClassVar[int]
    CHAIN_VERIFIED_FIELD_NUMBER: _ClassVar[int]
    checkpoint_json: str
    memories: _containers.RepeatedCompositeFieldContainer[ReplayMemory]
    event_count: int
    chain_valid: bool
    chain_total: int
    chain_verified: int
    def __init__(self, checkpoint_json: _Optional[str] = ..., memories: _Optional[_Iterable[_Union[ReplayMemory, _Mapping]]] = ..., event_count: _Optional[int] = ..., chain_valid: _Optional[bool] = ..., chain_total: _Optional[int] = ..., chain_verified: _Optional[int] = ...) -> None: ...

class ReplayMemory(_message.Message):
    __slots__ = ("id", "content", "memory_type", "created_at")
    ID_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    MEMORY_TYPE_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    id: str
    content: str
    memory_type: str
    created_at: str
    def __init__(self, id: _Optional[str] = ..., content: _Optional[str] = ..., memory_type: _Optional[str] = ..., created_at: _Optional[str] = ...) -> None: ...

class DelegateRequest(_message.Message):
    __slots__ = ("delegator_id", "delegate_id", "permission", "memory_ids", "tags", "max_depth", "expires_in_hours")
    DELEGATOR_ID_FIELD_NUMBER: _ClassVar[int]
    DELEGATE_ID_FIELD_NUMBER: _ClassVar[int]
    PERMISSION_FIELD_NUMBER: _ClassVar[int]
    MEMORY_IDS_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    MAX_DEPTH_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_IN_HOURS_FIELD_NUMBER: _ClassVar[int]
    delegator_id: str
    delegate_id: str
    permission: str
    memory_ids: _containers.RepeatedScalarFieldContainer[str]
    tags: _containers.RepeatedScalarFieldContainer[str]
    max_depth: int
    expires_in_hours: float
    def __init__(self, delegator_id: _Optional[str] = ..., delegate_id: _Optional[str] = ..., permission: _Optional[str] = ..., memory_ids: _Optional[_Iterable[str]] = ..., tags: _Optional[_Iterable[str]] = ..., max_depth: _Optional[int] = ..., expires_in_hours: _Optional[float] = ...) -> None: ...

class DelegateResponse(_message.Message):
    __slots__ = ("delegation_id",)
    DELEGATION_ID_FIELD_NUMBER: _ClassVar[int]
    delegation_id: str
    def __init__(self, delegation_id: _Optional[str] = ...) -> None: ...

class VerifyRequest(_message.Message):
    __slots__ = ("agent_id", "thread_id")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    thread_id: str
    def __init__(self, agent_id: _Optional[str] = ..., thread_id: _Optional[str] = ...) -> None: ...

class VerifyResponse(_message.Message):
    __slots__ = ("valid", "total_records", "verified_records", "first_broken_at", "error_message")
    VALID_FIELD_NUMBER: _ClassVar[int]
    TOTAL_RECORDS_FIELD_NUMBER: _ClassVar[int]
    VERIFIED_RECORDS_FIELD_NUMBER: _ClassVar[int]
    FIRST_BROKEN_AT_FIELD_NUMBER: _ClassVar[int]
    ERROR_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    valid: bool
    total_records: int
    verified_records: int
    first_broken_at: str
    error_message: str
    def __init__(self, valid: _Optional[bool] = ..., total_records: _Optional[int] = ..., verified_records: _Optional[int] = ..., first_broken_at: _Optional[str] = ..., error_message: _Optional[str] = ...) -> None: ...

class ForgetSubjectRequest(_message.Message):
    __slots__ = ("subject_id", "strategy", "agent_id")
    SUBJECT_ID_FIELD_NUMBER: _ClassVar[int]
    STRATEGY_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    subject_id: str
    strategy: str
    agent_id: str
    def __init__(self, subject_id: _Optional[str] = ..., strategy: _Optional[str] = ..., agent_id: _Optional[str] = ...) -> None: ...

class ForgetSubjectResponse(_message.Message):
    __slots__ = ("subject_id", "strategy", "matched", "forgotten", "cascaded_events", "errors")
    SUBJECT_ID_FIELD_NUMBER: _ClassVar[int]
    STRATEGY_FIELD_NUMBER: _ClassVar[int]
    MATCHED_FIELD_NUMBER: _ClassVar[int]
    FORGOTTEN_FIELD_NUMBER: _ClassVar[int]
    CASCADED_EVENTS_FIELD_NUMBER: _ClassVar[int]
    ERRORS_FIELD_NUMBER: _ClassVar[int]
    subject_id: str
    strategy: str
    matched: int
    forgotten: _containers.RepeatedScalarFieldContainer[str]
    cascaded_events: int
    errors: _containers.RepeatedCompositeFieldContainer[ForgetError]
    def __init__(self, subject_id: _Optional[str] = ..., strategy: _Optional[str] = ..., matched: _Optional[int] = ..., forgotten: _Optional[_Iterable[str]] = ..., cascaded_events: _Optional[int] = ..., errors: _Optional[_Iterable[_Union[ForgetError, _Mapping]]] = ...) -> None: ...

class TrajectoryAuditRequest(_message.Message):
    __slots__ = ("agent_id", "thread_id", "active_bank_ceiling", "fact_key", "named_forget_strategies")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_BANK_CEILING_FIELD_NUMBER: _ClassVar[int]
    FACT_KEY_FIELD_NUMBER: _ClassVar[int]
    NAMED_FORGET_STRATEGIES_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    thread_id: str
    active_bank_ceiling: int
    fact_key: str
    named_forget_strategies: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, agent_id: _Optional[str] = ..., thread_id: _Optional[str] = ..., active_bank_ceiling: _Optional[int] = ..., fact_key: _Optional[str] = ..., named_forget_strategies: _Optional[_Iterable[str]] = ...) -> None: ...

class TrajectoryAuditResponse(_message.Message):
    __slots__ = ("scope_label", "event_count", "all_ok", "unregulated_growth", "missing_semantic_revision", "capacity_driven_forgetting", "read_only_retrieval", "report_json")
    SCOPE_LABEL_FIELD_NUMBER: _ClassVar[int]
    EVENT_COUNT_FIELD_NUMBER: _ClassVar[int]
    ALL_OK_FIELD_NUMBER: _ClassVar[int]
    UNREGULATED_GROWTH_FIELD_NUMBER: _ClassVar[int]
    MISSING_SEMANTIC_REVISION_FIELD_NUMBER: _ClassVar[int]
    CAPACITY_DRIVEN_FORGETTING_FIELD_NUMBER: _ClassVar[int]
    READ_ONLY_RETRIEVAL_FIELD_NUMBER: _ClassVar[int]
    REPORT_JSON_FIELD_NUMBER: _ClassVar[int]
    scope_label: str
    event_count: int
    all_ok: bool
    unregulated_growth: TrajectoryFinding
    missing_semantic_revision: TrajectoryFinding
    capacity_driven_forgetting: TrajectoryFinding
    read_only_retrieval: TrajectoryFinding
    report_json: str
    def __init__(self, scope_label: _Optional[str] = ..., event_count: _Optional[int] = ..., all_ok: _Optional[bool] = ..., unregulated_growth: _Optional[_Union[TrajectoryFinding, _Mapping]] = ..., missing_semantic_revision: _Optional[_Union[TrajectoryFinding, _Mapping]] = ..., capacity_driven_forgetting: _Optional[_Union[TrajectoryFinding, _Mapping]] = ..., read_only_retrieval: _Optional[_Union[TrajectoryFinding, _Mapping]] = ..., report_json: _Optional[str] = ...) -> None: ...

class TrajectoryFinding(_message.Message):
    __slots__ = ("severity", "count")
    SEVERITY_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    severity: str
    count: int
    def __init__(self, severity: _Optional[str] = ..., count: _Optional[int] = ...) -> None: ...
