with source as (
    select *
    from {{ read_run_source('arena', 'embeddings') }}
),

renamed as (
    select
        item_id,
        kind,
        question_id,
        player,
        provider,
        embedding_model,
        dim,
        run_id,
        schema_version,
        vector::double[] as embedding
    from source
    where item_id is not null and player is not null
)

select * from renamed
