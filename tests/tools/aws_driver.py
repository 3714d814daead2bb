#!/usr/bin/env python3
"""boto3, the AWS SDK for Python, as the independent client of floe's AWS tests.

Usage: aws_driver.py <endpoint-url> <command-file.json>
       aws_driver.py <endpoint-url> -
The command file holds {"command": "...", ...arguments}; the result is printed
as one JSON document on stdout. With "-" the driver serves commands, one JSON
document a line on stdin, answering each with one line on stdout:
{"result": ...} or {"error": "..."} (one process: boto3 is imported once). Everything goes to the given endpoint (a moto
server) with test credentials in us-east-1 unless a command says otherwise.

Commands:
  kinesis-create      {stream, shards}                      -> {}
  kinesis-put         {stream, records: [{key, data_b64, hash_key?}], batch?} -> [{shard, sequence}]
                      (batch: PutRecords in calls of up to 500 records, in order)
  kinesis-split       {stream, shard, new_starting_hash_key} -> {}
  kinesis-merge       {stream, shard, adjacent}              -> {}
  kinesis-shards      {stream}                               -> ListShards' Shards
  kinesis-dump        {stream}                               -> {shard: [[sequence, data_b64], ...]}
  s3-notifications    {bucket, queue, route: direct|sns|eventbridge, prefix?} -> {queue_url}
  s3-put              {bucket, key, body}                    -> {etag}
  sqs-receive-all     {queue_url}                            -> [body, ...] (deletes them)
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


def client(service):
    return boto3.client(service, endpoint_url=ENDPOINT, region_name=REGION,
                        config=Config(retries={"max_attempts": 2, "mode": "standard"}))


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
        config = {"TopicConfigurations": [{"TopicArn": topic_arn, "Events": events, **key_filter}]}
    elif route == "eventbridge":
        events_client = client("events")
        events_client.put_rule(Name=queue + "-rule", EventPattern=json.dumps({"source": ["aws.s3"]}))
        events_client.put_targets(Rule=queue + "-rule", Targets=[{"Id": "queue", "Arn": queue_arn}])
        config = {"EventBridgeConfiguration": {}}
    else:
        raise ValueError("unknown route " + route)
    s3.put_bucket_notification_configuration(Bucket=bucket, NotificationConfiguration=config)
    return {"queue_url": queue_url}


def s3_put(args):
    answer = client("s3").put_object(Bucket=args["bucket"], Key=args["key"], Body=args["body"].encode())
    return {"etag": answer["ETag"].strip('"')}


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
    "s3-notifications": s3_notifications, "s3-put": s3_put, "sqs-receive-all": sqs_receive_all,
    "glue-get-table": glue_get_table, "glue-create-database": glue_create_database,
    "glue-create-plain-table": glue_create_plain_table,
}

if __name__ == "__main__":
    if sys.argv[2] == "-":
        for line in sys.stdin:
            if not line.strip():
                continue
            try:
                command = json.loads(line)
                answer = {"result": jsonable(COMMANDS[command["command"]](command))}
            except Exception as error:  # noqa: BLE001 - reported to the caller, which fails the test
                answer = {"error": "%s: %s" % (type(error).__name__, error)}
            sys.stdout.write(json.dumps(answer) + "\n")
            sys.stdout.flush()
        sys.exit(0)
    with open(sys.argv[2]) as f:
        command = json.load(f)
    result = COMMANDS[command["command"]](command)
    json.dump(jsonable(result), sys.stdout)
