import redis
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import create_async_engine


def test_redis_answers(redis_url):
    client = redis.Redis.from_url(redis_url)
    assert client.ping()
    client.close()


async def test_postgres_answers(postgres_url):
    engine = create_async_engine(postgres_url)
    async with engine.connect() as conn:
        assert (await conn.execute(sa.text("select 1"))).scalar() == 1
    await engine.dispose()
