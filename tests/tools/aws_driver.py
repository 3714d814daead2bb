#!/usr/bin/env python3
"""boto3, the AWS SDK for Python, as the independent client of floe's AWS tests.

Usage: aws_driver.py <endpoint-url> <command-file.json>
       aws_driver.py <endpoint-url> --serve
The command file holds {"command": "...", ...arguments}; the result is printed
as one JSON document on stdout. With --serve, commands are read one JSON
object per line from stdin and each answer is one line on stdout,
{"result": ...} or {"error": "..."} (one process for many commands: a test
that drives AWS step by step does not start Python each time). Everything goes to the given endpoint (a moto
server) with test credentials in us-east-1 unless a command says otherwise.

Commands:
  kinesis-create      {stream, shards}                      -> {}
  kinesis-put         {stream, records: [{key, data_b64, hash_key?}], batch?} -> [{shard, sequence}]
                      (batch: PutRecords in calls of up to 500 records, in order)
  kinesis-split       {stream, shard, new_starting_hash_key} -> {}
  kinesis-merge       {stream, shard, adjacent}              -> {}
  kinesis-shards      {stream}                               -> ListShards' Shards
  kinesis-dump        {stream}                               -> {shard: [[sequence, data_b64], ...]}
  s3-notifications    {bucket, queue, route: direct|sns|eventbridge, prefix?, capture_queue?}
                        -> {queue_url, capture_queue_url?}; with route sns a capture queue is
                        subscribed to the same topic and receives a copy of every notification
  s3-notifications-off {bucket}                              -> {} (events are no longer sent)
  s3-put              {bucket, key, body}                    -> {etag}
  s3-put-file         {bucket, key, file}                    -> {etag} (the file's bytes)
  s3-put-many         {bucket, prefix, count, body}          -> {} (count small objects, 16 threads)
  s3-land             {bucket, prefix, file, count, interval_ms} -> [{key, ms}]: count copies of the
                        file uploaded one by one, interval_ms apart; ms = epoch ms when the PUT returned
  sqs-create          {queue, visibility?, max_receives?}    -> {queue_url, dlq_url?} (with a
                        dead-letter queue taking messages received max_receives times)
  sqs-send            {queue_url, body}                      -> {message_id}
  sqs-receive-all     {queue_url}                            -> [body, ...] (deletes them)
  sqs-counts          {queue_url}                            -> {visible, in_flight}
  glue-get-table      {database, table}                      -> the Table of get_table
  glue-create-database {database}                            -> {}
  glue-create-plain-table {database, table}                  -> {} (a Hive table, not Iceberg)
"""
import base64
import json
import os
import sys

for name, value in (("AWS_ACCESS_KEY_ID", "testing"), ("AWS_SECRET_ACCESS_KEY", "testing"),
                    ("AWS_DEFAULT_REGION", "us-east-1")):
    os.environ.setdefault(name, value)
# The test process may point every AWS client at moto; boto3 gets the endpoint explicitly.
for name in list(os.environ):
    if name.startswith("AWS_ENDPOINT_URL"):
        del os.environ[name]

import boto3  # noqa: E402
from botocore.config import Config  # noqa: E402

ENDPOINT = sys.argv[1]
REGION = "us-east-1"
ACCOUNT = "123456789012"  # moto's default account


_clients = {}


def client(service):
    if service not in _clients:  # boto3 clients are thread-safe; --serve reuses them
        _clients[service] = boto3.client(service, endpoint_url=ENDPOINT, region_name=REGION,
                                         config=Config(retries={"max_attempts": 2, "mode": "standard"}))
    return _clients[service]


def jsonable(value):
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [jsonable(v) for v in value]
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(value).decode()
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


def kinesis_create(args):
    kinesis = client("kinesis")
    kinesis.create_stream(StreamName=args["stream"], ShardCount=args["shards"])
    kinesis.get_waiter("stream_exists").wait(StreamName=args["stream"], WaiterConfig={"Delay": 0.2})
    return {}


def kinesis_put(args):
    kinesis = client("kinesis")
    out = []
    if args.get("batch"):
        records = args["records"]
        for start in range(0, len(records), 500):
            entries = []
            for record in records[start:start + 500]:
                entry = {"PartitionKey": record["key"], "Data": base64.b64decode(record["data_b64"])}
                if record.get("hash_key"):
                    entry["ExplicitHashKey"] = record["hash_key"]
                entries.append(entry)
            answer = kinesis.put_records(StreamName=args["stream"], Records=entries)
            if answer.get("FailedRecordCount"):
                raise RuntimeError("put_records: %d records failed" % answer["FailedRecordCount"])
            out += [{"shard": r["ShardId"], "sequence": r["SequenceNumber"]} for r in answer["Records"]]
        return out
    for record in args["records"]:
        params = {"StreamName": args["stream"], "PartitionKey": record["key"],
                  "Data": base64.b64decode(record["data_b64"])}
        if record.get("hash_key"):
            params["ExplicitHashKey"] = record["hash_key"]
        answer = kinesis.put_record(**params)
        out.append({"shard": answer["ShardId"], "sequence": answer["SequenceNumber"]})
    return out


def kinesis_split(args):
    client("kinesis").split_shard(StreamName=args["stream"], ShardToSplit=args["shard"],
                                  NewStartingHashKey=args["new_starting_hash_key"])
    return {}


def kinesis_merge(args):
    client("kinesis").merge_shards(StreamName=args["stream"], ShardToMerge=args["shard"],
                                   AdjacentShardToMerge=args["adjacent"])
    return {}


def kinesis_shards(args):
    kinesis = client("kinesis")
    shards = []
    answer = kinesis.list_shards(StreamName=args["stream"])
    shards += answer["Shards"]
    while answer.get("NextToken"):
        answer = kinesis.list_shards(StreamName=args["stream"], NextToken=answer["NextToken"])
        shards += answer["Shards"]
    return shards


def kinesis_dump(args):
    kinesis = client("kinesis")
    out = {}
    for shard in kinesis_shards(args):
        iterator = kinesis.get_shard_iterator(StreamName=args["stream"], ShardId=shard["ShardId"],
                                              ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
        records = []
        while iterator:
            answer = kinesis.get_records(ShardIterator=iterator, Limit=1000)
            records += [[r["SequenceNumber"], base64.b64encode(r["Data"]).decode()] for r in answer["Records"]]
            if not answer["Records"]:
                break
            iterator = answer.get("NextShardIterator")
        out[shard["ShardId"]] = records
    return out


def s3_notifications(args):
    s3 = client("s3")
    sqs = client("sqs")
    bucket, queue = args["bucket"], args["queue"]
    s3.create_bucket(Bucket=bucket)
    queue_url = sqs.create_queue(QueueName=queue)["QueueUrl"]
    out = {"queue_url": queue_url}
    queue_arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    events = ["s3:ObjectCreated:*"]
    key_filter = {}
    if args.get("prefix"):
        key_filter = {"Filter": {"Key": {"FilterRules": [{"Name": "prefix", "Value": args["prefix"]}]}}}
    route = args["route"]
    if route == "direct":
        config = {"QueueConfigurations": [{"QueueArn": queue_arn, "Events": events, **key_filter}]}
    elif route == "sns":
        sns = client("sns")
        topic_arn = sns.create_topic(Name=queue + "-topic")["TopicArn"]
        sns.subscribe(TopicArn=topic_arn, Protocol="sqs", Endpoint=queue_arn)
        if args.get("capture_queue"):
            capture_url = sqs.create_queue(QueueName=args["capture_queue"])["QueueUrl"]
            capture_arn = sqs.get_queue_attributes(QueueUrl=capture_url,
                                                   AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
            sns.subscribe(TopicArn=topic_arn, Protocol="sqs", Endpoint=capture_arn)
            out["capture_queue_url"] = capture_url
        config = {"TopicConfigurations": [{"TopicArn": topic_arn, "Events": events, **key_filter}]}
    elif route == "eventbridge":
        events_client = client("events")
        events_client.put_rule(Name=queue + "-rule", EventPattern=json.dumps({"source": ["aws.s3"]}))
        events_client.put_targets(Rule=queue + "-rule", Targets=[{"Id": "queue", "Arn": queue_arn}])
        config = {"EventBridgeConfiguration": {}}
    else:
        raise ValueError("unknown route " + route)
    s3.put_bucket_notification_configuration(Bucket=bucket, NotificationConfiguration=config)
    return out


def s3_notifications_off(args):
    client("s3").put_bucket_notification_configuration(Bucket=args["bucket"], NotificationConfiguration={})
    return {}


def s3_put(args):
    answer = client("s3").put_object(Bucket=args["bucket"], Key=args["key"], Body=args["body"].encode())
    return {"etag": answer["ETag"].strip('"')}


def s3_put_file(args):
    with open(args["file"], "rb") as f:
        answer = client("s3").put_object(Bucket=args["bucket"], Key=args["key"], Body=f.read())
    return {"etag": answer["ETag"].strip('"')}


def s3_put_many(args):
    from concurrent.futures import ThreadPoolExecutor
    s3 = client("s3")
    s3.create_bucket(Bucket=args["bucket"])
    body = args["body"].encode()

    def put(i):
        s3.put_object(Bucket=args["bucket"], Key="%s%07d.parquet" % (args["prefix"], i), Body=body)

    with ThreadPoolExecutor(16) as pool:
        list(pool.map(put, range(args["count"])))
    return {}


def s3_land(args):
    import time
    s3 = client("s3")
    with open(args["file"], "rb") as f:
        body = f.read()
    landed = []
    for i in range(args["count"]):
        started = time.time()
        key = "%s%06d.parquet" % (args["prefix"], i)
        s3.put_object(Bucket=args["bucket"], Key=key, Body=body)
        landed.append({"key": key, "ms": int(time.time() * 1000)})
        time.sleep(max(0.0, args["interval_ms"] / 1000.0 - (time.time() - started)))
    return landed


def sqs_create(args):
    sqs = client("sqs")
    attributes = {}
    if args.get("visibility") is not None:
        attributes["VisibilityTimeout"] = str(args["visibility"])
    out = {}
    if args.get("max_receives"):
        dlq_url = sqs.create_queue(QueueName=args["queue"] + "-dlq")["QueueUrl"]
        dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        attributes["RedrivePolicy"] = json.dumps({"deadLetterTargetArn": dlq_arn,
                                                  "maxReceiveCount": str(args["max_receives"])})
        out["dlq_url"] = dlq_url
    out["queue_url"] = sqs.create_queue(QueueName=args["queue"], Attributes=attributes)["QueueUrl"]
    return out


def sqs_send(args):
    answer = client("sqs").send_message(QueueUrl=args["queue_url"], MessageBody=args["body"])
    return {"message_id": answer["MessageId"]}


def sqs_counts(args):
    attributes = client("sqs").get_queue_attributes(
        QueueUrl=args["queue_url"],
        AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"])["Attributes"]
    return {"visible": int(attributes["ApproximateNumberOfMessages"]),
            "in_flight": int(attributes["ApproximateNumberOfMessagesNotVisible"])}


def sqs_receive_all(args):
    sqs = client("sqs")
    bodies = []
    while True:
        answer = sqs.receive_message(QueueUrl=args["queue_url"], MaxNumberOfMessages=10, WaitTimeSeconds=0)
        messages = answer.get("Messages", [])
        if not messages:
            return bodies
        for message in messages:
            bodies.append(message["Body"])
            sqs.delete_message(QueueUrl=args["queue_url"], ReceiptHandle=message["ReceiptHandle"])


def glue_get_table(args):
    return jsonable(client("glue").get_table(DatabaseName=args["database"], Name=args["table"])["Table"])


def glue_create_database(args):
    client("glue").create_database(DatabaseInput={"Name": args["database"]})
    return {}


def glue_create_plain_table(args):
    client("glue").create_table(DatabaseName=args["database"], TableInput={
        "Name": args["table"], "TableType": "EXTERNAL_TABLE",
        "Parameters": {"classification": "parquet"},
        "StorageDescriptor": {"Location": "s3://elsewhere/" + args["table"],
                              "Columns": [{"Name": "id", "Type": "bigint"}]}})
    return {}


COMMANDS = {
    "kinesis-create": kinesis_create, "kinesis-put": kinesis_put, "kinesis-split": kinesis_split,
    "kinesis-merge": kinesis_merge, "kinesis-shards": kinesis_shards, "kinesis-dump": kinesis_dump,
    "s3-notifications": s3_notifications, "s3-notifications-off": s3_notifications_off, "s3-put": s3_put,
    "s3-put-file": s3_put_file, "s3-put-many": s3_put_many, "s3-land": s3_land,
    "sqs-create": sqs_create, "sqs-send": sqs_send, "sqs-receive-all": sqs_receive_all, "sqs-counts": sqs_counts,
    "glue-get-table": glue_get_table, "glue-create-database": glue_create_database,
    "glue-create-plain-table": glue_create_plain_table,
}

def serve():
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            command = json.loads(line)
            answer = {"result": jsonable(COMMANDS[command["command"]](command))}
        except Exception as error:  # the caller reports it with the command
            answer = {"error": "%s: %s" % (type(error).__name__, error)}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    if sys.argv[2] == "--serve":
        serve()
        sys.exit(0)
    with open(sys.argv[2]) as f:
        command = json.load(f)
    result = COMMANDS[command["command"]](command)
    json.dump(jsonable(result), sys.stdout)
