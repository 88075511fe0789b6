package act

// DefaultLogConfiguration are the logging files the ConfigMap carries unless
// spec.logConfiguration overrides them: it is mounted over the image's conf directory, and
// the image's scripts point log4j (log4j-console.properties) and logback
// (logback-console.xml) at it. Both log INFO to the console, where kubectl logs reads it.
var DefaultLogConfiguration = map[string]string{
	"log4j-console.properties": `# Written by flinkop: INFO to the console (spec.logConfiguration replaces this file).
monitorInterval = 30
rootLogger.level = INFO
rootLogger.appenderRef.console.ref = ConsoleAppender
logger.akka.name = akka
logger.akka.level = INFO
logger.pekko.name = org.apache.pekko
logger.pekko.level = INFO
logger.kafka.name = org.apache.kafka
logger.kafka.level = INFO
logger.hadoop.name = org.apache.hadoop
logger.hadoop.level = WARN
logger.zookeeper.name = org.apache.zookeeper
logger.zookeeper.level = INFO
logger.netty.name = org.jboss.netty.channel.DefaultChannelPipeline
logger.netty.level = OFF
appender.console.name = ConsoleAppender
appender.console.type = CONSOLE
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{yyyy-MM-dd HH:mm:ss,SSS} %-5p %-60c %x - %m%n
`,
	"logback-console.xml": `<!-- Written by flinkop: INFO to the console (spec.logConfiguration replaces this file). -->
<configuration>
    <appender name="console" class="ch.qos.logback.core.ConsoleAppender">
        <encoder>
            <pattern>%d{yyyy-MM-dd HH:mm:ss.SSS} [%thread] %-5level %logger{60} %X{sourceThread} - %msg%n</pattern>
        </encoder>
    </appender>
    <root level="INFO">
        <appender-ref ref="console"/>
    </root>
</configuration>
`,
}
